package io.blockxfer.nixl.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Owns one NIXL agent ({@code nixl_capi_agent_t}) with its backends, in {@code NIXL_THREAD_SYNC_RW}
 * mode. Every native handle it hands out (the agent, prepared lists, transfer requests) is a
 * segment in the scope of this agent's {@link Arena}: once the agent is closed, passing one to a
 * downcall throws {@link IllegalStateException} instead of touching freed memory, and the arena
 * cannot close while another thread is inside a call that uses one.
 *
 * <p><b>Thread safety:</b> thread-safe as NIXL's RW mode is: data-path calls may run concurrently
 * from any threads; one transfer request must not be used by two threads at once. {@link #close()}
 * must not race other calls (it fails with {@link IllegalStateException} if it does).
 */
public final class NixlAgent implements AutoCloseable {

    private static final MemorySegment NO_OPT_ARGS = MemorySegment.NULL;

    private final String name;
    private final Arena arena;
    private final MemorySegment agent;
    private final List<MemorySegment> backends;
    private final AtomicBoolean closed = new AtomicBoolean();

    private NixlAgent(String name, Arena arena, MemorySegment agent, List<MemorySegment> backends) {
        this.name = name;
        this.arena = arena;
        this.agent = agent;
        this.backends = backends;
    }

    /**
     * Creates an agent with the given backends; nothing stays allocated if it fails.
     *
     * @throws NixlException if NIXL refuses (unknown plugin, backend failure)
     * @throws NixlLoadException if the library cannot load
     */
    public static NixlAgent create(String name, NixlSettings settings) {
        Objects.requireNonNull(name, "name");
        NixlNative.ensureLoaded();
        Arena arena = Arena.ofShared();
        MemorySegment agent = null;
        List<MemorySegment> backends = new ArrayList<>();
        try {
            MemorySegment cfg = arena.allocate(NixlNative.AGENT_CONFIG);
            cfg.set(JAVA_BOOLEAN, offset("enable_prog_thread"), settings.progressThread());
            cfg.set(JAVA_BOOLEAN, offset("enable_listen_thread"), false);
            cfg.set(JAVA_INT, offset("listen_port"), 0);
            cfg.set(JAVA_INT, offset("thread_sync"), NixlNative.THREAD_SYNC_RW);
            cfg.set(JAVA_INT, offset("num_workers"), 1);
            cfg.set(JAVA_LONG, offset("pthr_delay_us"), settings.progressDelayMicros());
            cfg.set(JAVA_LONG, offset("lthr_delay_us"), 100_000L);
            cfg.set(JAVA_BOOLEAN, offset("capture_telemetry"), settings.telemetry());
            MemorySegment out = arena.allocate(ADDRESS);
            NixlStatus.check("nixl_capi_create_configured_agent('" + name + "')",
                    NixlNative.createConfiguredAgent(arena.allocateFrom(name), cfg, out));
            agent = NixlNative.scoped(out.get(ADDRESS, 0), arena);
            for (String backend : settings.backends()) {
                backends.add(createBackend(arena, agent, backend, settings.backendParams().getOrDefault(backend,
                        Map.of())));
            }
            return new NixlAgent(name, arena, agent, List.copyOf(backends));
        } catch (RuntimeException | Error e) {
            for (MemorySegment b : backends) {
                NixlNative.destroyBackend(b);
            }
            if (agent != null) {
                NixlNative.destroyAgent(agent);
            }
            arena.close();
            throw e;
        }
    }

    private static long offset(String field) {
        return NixlNative.AGENT_CONFIG.byteOffset(PathElement.groupElement(field));
    }

    private static MemorySegment createBackend(Arena arena, MemorySegment agent, String backend,
            Map<String, String> params) {
        MemorySegment out = arena.allocate(ADDRESS);
        NixlStatus.check("nixl_capi_create_params", NixlNative.createParams(out));
        MemorySegment p = out.get(ADDRESS, 0);
        try (Arena call = Arena.ofConfined()) {
            for (Map.Entry<String, String> e : params.entrySet()) {
                NixlStatus.check("nixl_capi_params_add(" + e.getKey() + ")",
                        NixlNative.paramsAdd(p, call.allocateFrom(e.getKey()), call.allocateFrom(e.getValue())));
            }
            MemorySegment b = call.allocate(ADDRESS);
            int status = NixlNative.createBackend(agent, call.allocateFrom(backend), p, b);
            if (status != NixlStatus.SUCCESS) {
                throw new NixlException("nixl_capi_create_backend('" + backend + "' " + params + "; plugins found: "
                        + plugins(agent) + ")", status);
            }
            return NixlNative.scoped(b.get(ADDRESS, 0), arena);
        } finally {
            NixlNative.destroyParams(p);
        }
    }

    /** The agent's name. */
    public String name() {
        return name;
    }

    /** The native agent, valid while this object is open. */
    public MemorySegment handle() {
        return agent;
    }

    /** The arena whose scope every handle of this agent lives in. */
    Arena arena() {
        return arena;
    }

    /** The plugins NIXL found in {@code NIXL_PLUGIN_DIR}. */
    public List<String> availablePlugins() {
        return plugins(agent);
    }

    private static List<String> plugins(MemorySegment agent) {
        List<String> names = new ArrayList<>();
        try (Arena call = Arena.ofConfined()) {
            MemorySegment out = call.allocate(ADDRESS);
            if (NixlNative.getAvailablePlugins(agent, out) != NixlStatus.SUCCESS) {
                return names;
            }
            MemorySegment list = out.get(ADDRESS, 0);
            try {
                MemorySegment size = call.allocate(JAVA_LONG);
                if (NixlNative.stringListSize(list, size) == NixlStatus.SUCCESS) {
                    for (long i = 0; i < size.get(JAVA_LONG, 0); i++) {
                        MemorySegment s = call.allocate(ADDRESS);
                        if (NixlNative.stringListGet(list, i, s) == NixlStatus.SUCCESS) {
                            names.add(NixlNative.cString(s.get(ADDRESS, 0)));
                        }
                    }
                }
            } finally {
                NixlNative.destroyStringList(list);
            }
        }
        return names;
    }

    // ------------------------------------------------------------------ registration

    /**
     * Registers {@code [address, address + length)} as DRAM with every backend.
     *
     * @return the registration's descriptor list, for {@link #deregister}
     */
    public MemorySegment register(long address, long length) {
        MemorySegment list = regList(address, length);
        int status = NixlNative.registerMem(agent, list, NO_OPT_ARGS);
        if (status != NixlStatus.SUCCESS) {
            NixlNative.destroyRegDlist(list);
            throw new NixlException("nixl_capi_register_mem(" + length + " bytes at 0x" + Long.toHexString(address)
                    + ")", status);
        }
        return list;
    }

    private MemorySegment regList(long address, long length) {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment out = call.allocate(ADDRESS);
            NixlStatus.check("nixl_capi_create_reg_dlist", NixlNative.createRegDlist(NixlNative.MEM_DRAM, out));
            MemorySegment list = NixlNative.scoped(out.get(ADDRESS, 0), arena);
            int status = NixlNative.regDlistAddDesc(list, address, length, 0L, MemorySegment.NULL, 0L);
            if (status != NixlStatus.SUCCESS) {
                NixlNative.destroyRegDlist(list);
                throw new NixlException("nixl_capi_reg_dlist_add_desc", status);
            }
            return list;
        }
    }

    /** Deregisters what {@link #register} registered and frees its list; returns the status of the deregistration. */
    public int deregister(MemorySegment registration) {
        int status = NixlNative.deregisterMem(agent, registration, NO_OPT_ARGS);
        NixlNative.destroyRegDlist(registration);
        return status;
    }

    // ------------------------------------------------------------------ metadata

    /** NIXL's metadata of this agent ({@code get_local_md}); the buffer NIXL mallocs is freed here. */
    public byte[] localMetadata() {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment data = call.allocate(ADDRESS);
            MemorySegment length = call.allocate(JAVA_LONG);
            NixlStatus.check("nixl_capi_get_local_md", NixlNative.getLocalMd(agent, data, length));
            MemorySegment blob = data.get(ADDRESS, 0);
            try {
                long n = length.get(JAVA_LONG, 0);
                if (n <= 0 || n > Integer.MAX_VALUE - 64) {
                    throw new IllegalStateException("nixl_capi_get_local_md returned " + n + " bytes");
                }
                return NixlNative.copyBytes(blob, n);
            } finally {
                NixlNative.free(blob);
            }
        }
    }

    /**
     * Loads a remote agent's validated metadata ({@code load_remote_md}).
     *
     * @return the agent name NIXL read (strdup'd by NIXL; freed here)
     * @throws NixlException with NIXL's status if it refuses
     */
    public String loadRemote(byte[] blob) {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment data = call.allocateFrom(JAVA_BYTE, blob);
            MemorySegment out = call.allocate(ADDRESS);
            out.set(ADDRESS, 0, MemorySegment.NULL);
            int status = NixlNative.loadRemoteMd(agent, data, blob.length, out);
            MemorySegment name = out.get(ADDRESS, 0);
            String loaded = name.equals(MemorySegment.NULL) ? null : NixlNative.cString(name);
            if (!name.equals(MemorySegment.NULL)) {
                NixlNative.free(name);
            }
            NixlStatus.check("nixl_capi_load_remote_md", status);
            if (loaded == null) {
                throw new NixlException("nixl_capi_load_remote_md returned no agent name", NixlStatus.ERROR_BACKEND);
            }
            return loaded;
        }
    }

    /** {@code invalidate_remote_md}: drops a remote agent's metadata and connection; returns NIXL's status. */
    public int invalidateRemote(String remote) {
        try (Arena call = Arena.ofConfined()) {
            return NixlNative.invalidateRemoteMd(agent, call.allocateFrom(remote));
        }
    }

    /** {@code check_remote_md} without descriptors: whether the remote's metadata is loaded. */
    public int checkRemote(String remote) {
        try (Arena call = Arena.ofConfined()) {
            return NixlNative.checkRemoteMd(agent, call.allocateFrom(remote), MemorySegment.NULL);
        }
    }

    // ------------------------------------------------------------------ prepared descriptor lists

    /**
     * Builds a list of {@code count} blocks of {@code blockLength} bytes, block {@code i} at
     * {@code base + i * blockLength} on device {@code deviceId}, and prepares it for
     * {@code agentName} ({@code ""} for the local side). The unprepared list is freed here.
     *
     * @return the prepared list handle (an address), for {@link #releasePrepared}
     */
    public long prepare(String agentName, long base, long blockLength, int count, long deviceId) {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment out = call.allocate(ADDRESS);
            NixlStatus.check("nixl_capi_create_xfer_dlist", NixlNative.createXferDlist(NixlNative.MEM_DRAM, out));
            MemorySegment list = out.get(ADDRESS, 0);
            try {
                for (int i = 0; i < count; i++) {
                    int status = NixlNative.xferDlistAddDesc(list, base + i * blockLength, blockLength, deviceId);
                    if (status != NixlStatus.SUCCESS) {
                        throw new NixlException("nixl_capi_xfer_dlist_add_desc(" + i + ")", status);
                    }
                }
                out.set(ADDRESS, 0, MemorySegment.NULL);
                int status = NixlNative.prepXferDlist(agent, call.allocateFrom(agentName), list, out, NO_OPT_ARGS);
                long handle = out.get(ADDRESS, 0).address();
                if (status != NixlStatus.SUCCESS) {
                    if (handle != 0) {
                        // NIXL 1.0-1.4 leave the handle allocated when prep fails
                        NixlNative.releaseXferDlistHandle(agent, handle);
                    }
                    throw new NixlException("nixl_capi_prep_xfer_dlist('" + agentName + "', " + count + " x "
                            + blockLength + " B at 0x" + Long.toHexString(base) + ")", status);
                }
                if (handle == 0) {
                    throw new NixlException("nixl_capi_prep_xfer_dlist returned no handle", NixlStatus.ERROR_BACKEND);
                }
                return handle;
            } finally {
                NixlNative.destroyXferDlist(list);
            }
        }
    }

    /** Releases a prepared list; returns NIXL's status. Throws {@link IllegalStateException} once the agent is closed. */
    public int releasePrepared(long handle) {
        return NixlNative.releaseXferDlistHandle(agent, handle);
    }

    // ------------------------------------------------------------------ lifecycle

    /** Whether {@link #close()} ran. */
    public boolean isClosed() {
        return closed.get();
    }

    /**
     * Destroys the agent (NIXL deregisters what is left and closes its connections), its backend
     * wrappers, and the arena. Idempotent.
     *
     * @return NIXL's status of {@code destroy_agent}, or {@link NixlStatus#SUCCESS} if already closed
     */
    public int destroy() {
        if (!closed.compareAndSet(false, true)) {
            return NixlStatus.SUCCESS;
        }
        for (MemorySegment b : backends) {
            NixlNative.destroyBackend(b);
        }
        int status = NixlNative.destroyAgent(agent);
        arena.close();
        return status;
    }

    @Override
    public void close() {
        destroy();
    }

    @Override
    public String toString() {
        return "NIXL agent '" + name + "'" + (closed.get() ? " (closed)" : "");
    }
}
