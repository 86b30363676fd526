package io.blockxfer.nixl.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The binding: owns every downcall handle into {@code libnixl_capi.so} and the few libc functions
 * it needs. A C function is one {@code static final} {@link MethodHandle} line (its symbol and
 * {@link FunctionDescriptor}) plus a one-line method that calls it through the invoker of its
 * shape ({@code call(...)}, the only place that catches {@code invokeExact}'s {@code Throwable});
 * each returns its {@code nixl_capi_status_t} unchanged (see {@link NixlStatus}).
 *
 * <p><b>Versions.</b> The library's C ABI is told from its symbols and its release from the wheel
 * metadata beside it, and both are checked against the certified list ({@link NixlAbi}). Every
 * function bound here has the same signature in every certified release (1.0.0 to 1.5.1), so one
 * descriptor table serves them all; where releases differ in behaviour (whether {@code NOT_FOUND}
 * is reported, a wrapper leak of 1.0-1.4) callers ask {@link #abi()}. The descriptors are written
 * by hand against each release's {@code wrapper.h} (upstream, not shipped in the wheels, not
 * copied here). Pointers are {@code ADDRESS}, {@code size_t} and {@code uint64_t} are
 * {@code JAVA_LONG}, enums and {@code int} are {@code JAVA_INT}, C {@code bool} is
 * {@code JAVA_BOOLEAN}.
 *
 * <p><b>The hot path</b> ({@code make}, {@code post}, {@code status}, {@code release},
 * {@code destroy} of transfer requests, and their telemetry) takes the request and the prepared
 * list handles as {@code long} addresses, bound as {@code JAVA_LONG}: on the 64-bit Linux ABIs
 * (x86-64 System V, AArch64) a pointer and a 64-bit integer travel in the same register, and this
 * saves a {@link MemorySegment} per call. The agent stays a segment in its agent's arena, so a call
 * on a destroyed agent still throws instead of touching freed memory.
 *
 * <p>No C++ exception reaches the JVM: each bound function wraps its body in
 * {@code try { ... } catch (...)} ({@code get_notifs} and the notification-map reads in
 * {@code catch (const std::exception&)}, which is what the standard library and NIXL throw), except
 * the destroy functions, {@code is_stub}, the string-list reads and the notification map's size,
 * clear and walk, whose bodies cannot throw; {@code scripts/nixl-check-abi} verifies this on the
 * installed binary from its exception tables.
 *
 * <p>Loading happens once, when this class initialises: the library is found by
 * {@link NixlLibraryLocator}; before it loads, {@code UCX_ERROR_SIGNALS} is set empty (UCX's
 * signal handlers would otherwise replace the JVM's) and {@code NIXL_PLUGIN_DIR} is set to the
 * {@code plugins/} folder beside the library. A failure makes initialisation throw a
 * {@link NixlLoadException} naming the cause with {@code dlerror()}'s text; the provider's
 * availability probe reports it.
 *
 * <p>Memory NIXL allocates for its outputs (local metadata, loaded agent names) is released with
 * {@link #free(MemorySegment)}: the process's {@code free} as NIXL's own calls bind it (an
 * {@code LD_PRELOAD}ed allocator's, if any), not necessarily glibc's.
 *
 * <p><b>Thread safety:</b> the handles are immutable and the C functions are called with NIXL's
 * {@code NIXL_THREAD_SYNC_RW} agents, so calls may come from any thread, with the exceptions NIXL
 * states: never two calls on one transfer request at once.
 */
@SuppressWarnings("restricted")
public final class NixlNative {

    // enums, identical in every certified C ABI
    /** {@code nixl_capi_mem_type_t DRAM_SEG}. */
    public static final int MEM_DRAM = 0;
    /** {@code nixl_capi_xfer_op_t NIXL_CAPI_XFER_OP_READ}. */
    public static final int OP_READ = 0;
    /** {@code nixl_capi_xfer_op_t NIXL_CAPI_XFER_OP_WRITE}. */
    public static final int OP_WRITE = 1;
    /** {@code nixl_capi_thread_sync_t NIXL_CAPI_THREAD_SYNC_RW}. */
    public static final int THREAD_SYNC_RW = 2;

    /**
     * {@code struct nixl_capi_agent_config_s} (40 bytes, the same in every certified C ABI):
     * {@code bool enable_prog_thread; bool enable_listen_thread; int listen_port; int thread_sync;
     * unsigned num_workers; uint64_t pthr_delay_us; uint64_t lthr_delay_us; bool capture_telemetry;}.
     */
    public static final StructLayout AGENT_CONFIG = MemoryLayout.structLayout(
            JAVA_BOOLEAN.withName("enable_prog_thread"),
            JAVA_BOOLEAN.withName("enable_listen_thread"),
            MemoryLayout.paddingLayout(2),
            JAVA_INT.withName("listen_port"),
            JAVA_INT.withName("thread_sync"),
            JAVA_INT.withName("num_workers"),
            JAVA_LONG.withName("pthr_delay_us"),
            JAVA_LONG.withName("lthr_delay_us"),
            JAVA_BOOLEAN.withName("capture_telemetry"),
            MemoryLayout.paddingLayout(7)).withName("nixl_capi_agent_config_s");

    /**
     * {@code struct nixl_capi_xfer_telemetry_s} (40 bytes): {@code uint64_t start_time_us,
     * post_duration_us, xfer_duration_us, total_bytes, desc_count}.
     */
    public static final StructLayout XFER_TELEMETRY = MemoryLayout.structLayout(
            JAVA_LONG.withName("start_time_us"),
            JAVA_LONG.withName("post_duration_us"),
            JAVA_LONG.withName("xfer_duration_us"),
            JAVA_LONG.withName("total_bytes"),
            JAVA_LONG.withName("desc_count")).withName("nixl_capi_xfer_telemetry_s");

    // Linux's values on x86-64 and AArch64
    private static final int PROT_READ = 1;
    private static final int PROT_WRITE = 2;
    private static final int MAP_PRIVATE = 0x02;
    private static final int MAP_ANONYMOUS = 0x20;
    private static final int MADV_HUGEPAGE = 14;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final FunctionDescriptor I_P = FunctionDescriptor.of(JAVA_INT, ADDRESS);
    private static final FunctionDescriptor I_PP = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS);
    private static final FunctionDescriptor I_PPP = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
    private static final FunctionDescriptor I_PPPP = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS,
            ADDRESS);
    private static final FunctionDescriptor I_PPPPP = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS,
            ADDRESS, ADDRESS);
    private static final FunctionDescriptor I_IP = FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS);
    private static final FunctionDescriptor I_J = FunctionDescriptor.of(JAVA_INT, JAVA_LONG);
    private static final FunctionDescriptor I_PJ = FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG);
    private static final FunctionDescriptor I_PJP = FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS);
    private static final FunctionDescriptor I_PJJJ = FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG,
            JAVA_LONG);
    private static final FunctionDescriptor I_PPJP = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG,
            ADDRESS);
    private static final FunctionDescriptor I_PPJ = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG);
    private static final FunctionDescriptor I_PZ = FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BOOLEAN);
    private static final FunctionDescriptor I_PPJPP = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG,
            ADDRESS, ADDRESS);
    private static final FunctionDescriptor I_PPPJP = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS,
            JAVA_LONG, ADDRESS);

    // ---------------------------------------------------------------- libc
    private static final MethodHandle SETENV = libc("setenv", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS,
            JAVA_INT));
    private static final MethodHandle DLSYM = libc("dlsym", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle FREE = LINKER.downcallHandle(globalSymbol("free"), FunctionDescriptor.ofVoid(
            ADDRESS));
    private static final MethodHandle DLOPEN = libc("dlopen", FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT));
    private static final MethodHandle DLERROR = libc("dlerror", FunctionDescriptor.of(ADDRESS));
    private static final MethodHandle GETPID = libc("getpid", FunctionDescriptor.of(JAVA_INT));
    private static final MethodHandle MMAP = libc("mmap", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG,
            JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG));
    private static final MethodHandle MADVISE = libc("madvise", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG,
            JAVA_INT));
    private static final MethodHandle MUNMAP = libc("munmap", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG));

    // ---------------------------------------------------------------- the library
    private static final Loaded LOADED = Loaded.load();

    // ---------------------------------------------------------------- nixl_capi: one line per function
    private static final MethodHandle IS_STUB = nixl("nixl_capi_is_stub", FunctionDescriptor.of(JAVA_BOOLEAN));
    private static final MethodHandle CREATE_CONFIGURED_AGENT = nixl("nixl_capi_create_configured_agent", I_PPP);
    private static final MethodHandle DESTROY_AGENT = nixl("nixl_capi_destroy_agent", I_P);
    private static final MethodHandle GET_AVAILABLE_PLUGINS = nixl("nixl_capi_get_available_plugins", I_PP);
    private static final MethodHandle STRING_LIST_SIZE = nixl("nixl_capi_string_list_size", I_PP);
    private static final MethodHandle STRING_LIST_GET = nixl("nixl_capi_string_list_get", I_PJP);
    private static final MethodHandle DESTROY_STRING_LIST = nixl("nixl_capi_destroy_string_list", I_P);
    private static final MethodHandle CREATE_PARAMS = nixl("nixl_capi_create_params", I_P);
    private static final MethodHandle PARAMS_ADD = nixl("nixl_capi_params_add", I_PPP);
    private static final MethodHandle DESTROY_PARAMS = nixl("nixl_capi_destroy_params", I_P);
    private static final MethodHandle CREATE_BACKEND = nixl("nixl_capi_create_backend", I_PPPP);
    private static final MethodHandle DESTROY_BACKEND = nixl("nixl_capi_destroy_backend", I_P);
    private static final MethodHandle CREATE_REG_DLIST = nixl("nixl_capi_create_reg_dlist", I_IP);
    private static final MethodHandle REG_DLIST_ADD_DESC = nixl("nixl_capi_reg_dlist_add_desc",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_LONG, ADDRESS, JAVA_LONG));
    private static final MethodHandle DESTROY_REG_DLIST = nixl("nixl_capi_destroy_reg_dlist", I_P);
    private static final MethodHandle REGISTER_MEM = nixl("nixl_capi_register_mem", I_PPP);
    private static final MethodHandle DEREGISTER_MEM = nixl("nixl_capi_deregister_mem", I_PPP);
    private static final MethodHandle GET_LOCAL_MD = nixl("nixl_capi_get_local_md", I_PPP);
    private static final MethodHandle LOAD_REMOTE_MD = nixl("nixl_capi_load_remote_md", I_PPJP);
    private static final MethodHandle INVALIDATE_REMOTE_MD = nixl("nixl_capi_invalidate_remote_md", I_PP);
    private static final MethodHandle CHECK_REMOTE_MD = nixl("nixl_capi_check_remote_md", I_PPP);
    private static final MethodHandle CREATE_XFER_DLIST = nixl("nixl_capi_create_xfer_dlist", I_IP);
    private static final MethodHandle XFER_DLIST_ADD_DESC = nixl("nixl_capi_xfer_dlist_add_desc", I_PJJJ);
    private static final MethodHandle DESTROY_XFER_DLIST = nixl("nixl_capi_destroy_xfer_dlist", I_P);
    private static final MethodHandle PREP_XFER_DLIST = nixl("nixl_capi_prep_xfer_dlist", I_PPPPP);
    private static final MethodHandle RELEASE_XFER_DLIST_HANDLE = nixl("nixl_capi_release_xfer_dlist_handle", I_PJ);
    // the hot path: request and prepared-list handles as JAVA_LONG (see the class comment)
    private static final MethodHandle MAKE_XFER_REQ = nixl("nixl_capi_make_xfer_req", FunctionDescriptor.of(JAVA_INT,
            ADDRESS, JAVA_INT, JAVA_LONG, ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS));
    private static final MethodHandle POST_XFER_REQ = nixl("nixl_capi_post_xfer_req",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS));
    private static final MethodHandle GET_XFER_STATUS = nixl("nixl_capi_get_xfer_status", I_PJ);
    private static final MethodHandle RELEASE_XFER_REQ = nixl("nixl_capi_release_xfer_req", I_PJ);
    private static final MethodHandle DESTROY_XFER_REQ = nixl("nixl_capi_destroy_xfer_req", I_J);
    private static final MethodHandle GET_XFER_TELEMETRY = nixl("nixl_capi_get_xfer_telemetry", I_PJP);
    // notifications: opt args carrying a transfer's message, the agent's notification map, messages without a transfer
    private static final MethodHandle CREATE_OPT_ARGS = nixl("nixl_capi_create_opt_args", I_P);
    private static final MethodHandle DESTROY_OPT_ARGS = nixl("nixl_capi_destroy_opt_args", I_P);
    private static final MethodHandle OPT_ARGS_SET_NOTIF_MSG = nixl("nixl_capi_opt_args_set_notif_msg", I_PPJ);
    private static final MethodHandle OPT_ARGS_SET_HAS_NOTIF = nixl("nixl_capi_opt_args_set_has_notif", I_PZ);
    private static final MethodHandle CREATE_NOTIF_MAP = nixl("nixl_capi_create_notif_map", I_P);
    private static final MethodHandle DESTROY_NOTIF_MAP = nixl("nixl_capi_destroy_notif_map", I_P);
    private static final MethodHandle GET_NOTIFS = nixl("nixl_capi_get_notifs", I_PPP);
    private static final MethodHandle NOTIF_MAP_SIZE = nixl("nixl_capi_notif_map_size", I_PP);
    private static final MethodHandle NOTIF_MAP_GET_AGENT_AT = nixl("nixl_capi_notif_map_get_agent_at", I_PJP);
    private static final MethodHandle NOTIF_MAP_GET_NOTIFS_SIZE = nixl("nixl_capi_notif_map_get_notifs_size", I_PPP);
    private static final MethodHandle NOTIF_MAP_GET_NOTIF = nixl("nixl_capi_notif_map_get_notif", I_PPJPP);
    private static final MethodHandle NOTIF_MAP_CLEAR = nixl("nixl_capi_notif_map_clear", I_P);
    private static final MethodHandle GEN_NOTIF = nixl("nixl_capi_gen_notif", I_PPPJP);

    private NixlNative() {
    }

    /**
     * {@code dlsym(RTLD_DEFAULT, name)}: the definition every library of the process binds to, an
     * interposed allocator's ({@code LD_PRELOAD} of jemalloc, tcmalloc, heaptrack) included. NIXL's
     * {@code malloc} of its outputs binds to that one, so their {@code free} must too; the JDK's
     * {@link Linker#defaultLookup()} searches only libc and would hand glibc's {@code free} memory
     * another allocator owns.
     */
    private static MemorySegment globalSymbol(String name) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment address = (MemorySegment) DLSYM.invokeExact(MemorySegment.NULL /* RTLD_DEFAULT */,
                    a.allocateFrom(name));
            if (address.equals(MemorySegment.NULL)) {
                throw new NixlLoadException("dlsym(RTLD_DEFAULT, \"" + name + "\") found nothing");
            }
            return address;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static MethodHandle libc(String name, FunctionDescriptor fd) {
        return LINKER.downcallHandle(LIBC.find(name).orElseThrow(
                () -> new NixlLoadException("libc lacks " + name + "()")), fd);
    }

    private static MethodHandle nixl(String name, FunctionDescriptor fd) {
        MemorySegment symbol = LOADED.lookup.find(name).orElseThrow(() -> new NixlLoadException(LOADED.describe()
                + " lacks " + name + "(), which every certified NIXL C ABI (" + NixlAbi.certifiedRange() + ") has"));
        return LINKER.downcallHandle(symbol, fd);
    }

    // ---------------------------------------------------------------- the invokers, one per shape
    // The only places that catch invokeExact's Throwable. Small and static, so the JIT inlines them
    // and the handle, a static final at every call site, stays a constant.

    private static int call(MethodHandle h, MemorySegment a) {
        try {
            return (int) h.invokeExact(a);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static int call(MethodHandle h, MemorySegment a, MemorySegment b) {
        try {
            return (int) h.invokeExact(a, b);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static int call(MethodHandle h, MemorySegment a, MemorySegment b, MemorySegment c) {
        try {
            return (int) h.invokeExact(a, b, c);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static int call(MethodHandle h, MemorySegment a, MemorySegment b, MemorySegment c, MemorySegment d) {
        try {
            return (int) h.invokeExact(a, b, c, d);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static int call(MethodHandle h, MemorySegment a, MemorySegment b, MemorySegment c, MemorySegment d,
            MemorySegment e) {
        try {
            return (int) h.invokeExact(a, b, c, d, e);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static int call(MethodHandle h, int a, MemorySegment b) {
        try {
            return (int) h.invokeExact(a, b);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static int call(MethodHandle h, long a) {
        try {
            return (int) h.invokeExact(a);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static int call(MethodHandle h, MemorySegment a, long b) {
        try {
            return (int) h.invokeExact(a, b);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static int call(MethodHandle h, MemorySegment a, long b, MemorySegment c) {
        try {
            return (int) h.invokeExact(a, b, c);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static int call(MethodHandle h, MemorySegment a, long b, long c, long d) {
        try {
            return (int) h.invokeExact(a, b, c, d);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static int call(MethodHandle h, MemorySegment a, MemorySegment b, long c, MemorySegment d) {
        try {
            return (int) h.invokeExact(a, b, c, d);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static int call(MethodHandle h, MemorySegment a, MemorySegment b, long c) {
        try {
            return (int) h.invokeExact(a, b, c);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static int call(MethodHandle h, MemorySegment a, boolean b) {
        try {
            return (int) h.invokeExact(a, b);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static int call(MethodHandle h, MemorySegment a, MemorySegment b, long c, MemorySegment d,
            MemorySegment e) {
        try {
            return (int) h.invokeExact(a, b, c, d, e);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static int call(MethodHandle h, MemorySegment a, MemorySegment b, MemorySegment c, long d,
            MemorySegment e) {
        try {
            return (int) h.invokeExact(a, b, c, d, e);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static int call(MethodHandle h, MemorySegment a, long b, long c, long d, MemorySegment e, long f) {
        try {
            return (int) h.invokeExact(a, b, c, d, e, f);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static int call(MethodHandle h, MemorySegment a, int b, long c, MemorySegment d, long e, long f,
            MemorySegment g, long i, MemorySegment j, MemorySegment k) {
        try {
            return (int) h.invokeExact(a, b, c, d, e, f, g, i, j, k);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new IllegalStateException("unexpected checked exception from a downcall", t);
    }

    /** The loaded library, where it came from, its release and its C ABI. */
    private record Loaded(SymbolLookup lookup, NixlLibraryLocator.Location location, String version, NixlAbi abi) {

        static Loaded load() {
            NixlLibraryLocator.Location location = NixlLibraryLocator.fromSystem().locate();
            // UCS reads UCX_* when libucs loads: before NIXL (and its UCX) load, keep UCX's handlers off
            // the signals the JVM uses.
            setenvOrThrow("UCX_ERROR_SIGNALS", "");
            String pluginDir = System.getProperty("blockxfer.nixl.pluginDir");
            if (pluginDir == null || pluginDir.isBlank()) {
                pluginDir = location.pluginDir().map(Path::toString).orElse(null);
            }
            if (pluginDir != null) {
                setenvOrThrow("NIXL_PLUGIN_DIR", pluginDir);
            }
            SymbolLookup lookup;
            Arena arena = Arena.global();
            if (location.library().isPresent()) {
                Path lib = location.library().get().toAbsolutePath();
                if (!Files.isRegularFile(lib)) {
                    throw new NixlLoadException(lib + " does not exist (looked at: " + location.describe() + ")");
                }
                lookup = open(lib.toString(), location, () -> SymbolLookup.libraryLookup(lib, arena));
            } else {
                lookup = open(NixlLibraryLocator.LIBRARY, location,
                        () -> SymbolLookup.libraryLookup(NixlLibraryLocator.LIBRARY, arena));
            }
            String library = describe(location);
            NixlAbi abi = NixlAbi.fromSymbols(lookup, library);
            Optional<String> wheel = location.wheelVersion();
            NixlAbi.check(abi, wheel, library, Boolean.getBoolean(NixlAbi.ALLOW_UNCERTIFIED));
            String version = wheel.orElse("unknown release (no wheel metadata beside the library), C ABI of "
                    + abi.describe());
            return new Loaded(lookup, location, version, abi);
        }

        private static SymbolLookup open(String what, NixlLibraryLocator.Location location,
                java.util.function.Supplier<SymbolLookup> opener) {
            try {
                return opener.get();
            } catch (IllegalArgumentException e) {
                // Java says only "Cannot open library"; ask the dynamic loader for the reason.
                throw new NixlLoadException("cannot load " + what + ": " + dlerrorOf(what) + " (looked at: "
                        + location.describe() + ")", e);
            }
        }

        String describe() {
            return describe(location);
        }

        static String describe(NixlLibraryLocator.Location location) {
            return location.library().map(p -> "library " + p).orElse("library " + NixlLibraryLocator.LIBRARY
                    + " (system search path)");
        }
    }

    private static void setenvOrThrow(String key, String value) {
        try (Arena a = Arena.ofConfined()) {
            int rc = (int) SETENV.invokeExact(a.allocateFrom(key), a.allocateFrom(value), 1);
            if (rc != 0) {
                throw new NixlLoadException("setenv(" + key + ") failed before loading NIXL");
            }
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static String dlerrorOf(String library) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment handle = (MemorySegment) DLOPEN.invokeExact(a.allocateFrom(library), 2 /* RTLD_NOW */);
            MemorySegment error = (MemorySegment) DLERROR.invokeExact();
            if (!handle.equals(MemorySegment.NULL)) {
                return "dlopen succeeded on retry, but the JDK could not open it";
            }
            return error.equals(MemorySegment.NULL) ? "dlopen failed without a dlerror() message"
                    : "dlerror: " + error.reinterpret(4096).getString(0);
        } catch (Throwable t) {
            return "dlopen/dlerror unavailable: " + t;
        }
    }

    // ================================================================ library facts

    /** Initialises the binding, loading the library; throws {@link NixlLoadException} if it cannot. */
    public static void ensureLoaded() {
        // class initialisation did the work
    }

    /** Where the library was loaded from. */
    public static String libraryDescription() {
        return LOADED.describe();
    }

    /** The wheel and release the library came from (e.g. {@code "nixl-cu12 1.4.1"}), or what is known of it. */
    public static String version() {
        return LOADED.version;
    }

    /** The C ABI of the loaded library. */
    public static NixlAbi abi() {
        return LOADED.abi;
    }

    /** Where the locator looked. */
    public static String locationTrace() {
        return LOADED.location.describe();
    }

    // ================================================================ pointers NIXL returns

    /** {@code pointer} as a zero-length segment in {@code arena}'s scope: unusable once the arena closes. */
    public static MemorySegment scoped(MemorySegment pointer, Arena arena) {
        return pointer.reinterpret(arena, null);
    }

    /** The NUL-terminated string at {@code pointer} (at most 64 KiB). */
    public static String cString(MemorySegment pointer) {
        return pointer.reinterpret(65_536).getString(0);
    }

    /** A copy of the {@code length} bytes at {@code pointer}. */
    public static byte[] copyBytes(MemorySegment pointer, long length) {
        return pointer.reinterpret(length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
    }

    // ================================================================ libc

    /** {@code free} as NIXL's own calls bind it: releases an output NIXL allocated with {@code malloc}/{@code strdup}. */
    public static void free(MemorySegment pointer) {
        try {
            FREE.invokeExact(pointer);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** libc {@code getpid}. */
    public static int getpid() {
        try {
            return (int) GETPID.invokeExact();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * libc {@code mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)}: zeroed
     * memory of this process alone; its address, or -1 ({@code MAP_FAILED}).
     */
    public static long mapAnonymous(long length) {
        try {
            return (long) MMAP.invokeExact(0L, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0L);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** libc {@code madvise(address, length, MADV_HUGEPAGE)}: 0, or -1 where the kernel has no such pages. */
    public static int adviseHugePages(long address, long length) {
        try {
            return (int) MADVISE.invokeExact(address, length, MADV_HUGEPAGE);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** libc {@code munmap}: 0, or -1. */
    public static int unmap(long address, long length) {
        try {
            return (int) MUNMAP.invokeExact(address, length);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    // ================================================================ nixl_capi: misc and agents

    /** {@code bool nixl_capi_is_stub(void)}: whether the library is the Rust crate's stub; the cheapest downcall. */
    public static boolean isStub() {
        try {
            return (boolean) IS_STUB.invokeExact();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code nixl_capi_create_configured_agent(const char*, const nixl_capi_agent_config_t*, nixl_capi_agent_t*)}. */
    public static int createConfiguredAgent(MemorySegment name, MemorySegment config, MemorySegment outAgent) {
        return call(CREATE_CONFIGURED_AGENT, name, config, outAgent);
    }

    /** {@code nixl_capi_destroy_agent(nixl_capi_agent_t)}. */
    public static int destroyAgent(MemorySegment agent) {
        return call(DESTROY_AGENT, agent);
    }

    /** {@code nixl_capi_get_available_plugins(nixl_capi_agent_t, nixl_capi_string_list_t*)}. */
    public static int getAvailablePlugins(MemorySegment agent, MemorySegment outList) {
        return call(GET_AVAILABLE_PLUGINS, agent, outList);
    }

    /** {@code nixl_capi_string_list_size(nixl_capi_string_list_t, size_t*)}. */
    public static int stringListSize(MemorySegment list, MemorySegment outSize) {
        return call(STRING_LIST_SIZE, list, outSize);
    }

    /** {@code nixl_capi_string_list_get(list, size_t, const char**)}; the string stays owned by the list. */
    public static int stringListGet(MemorySegment list, long index, MemorySegment outString) {
        return call(STRING_LIST_GET, list, index, outString);
    }

    /** {@code nixl_capi_destroy_string_list(nixl_capi_string_list_t)}. */
    public static int destroyStringList(MemorySegment list) {
        return call(DESTROY_STRING_LIST, list);
    }

    // ================================================================ backends

    /** {@code nixl_capi_create_params(nixl_capi_params_t*)}. */
    public static int createParams(MemorySegment outParams) {
        return call(CREATE_PARAMS, outParams);
    }

    /** {@code nixl_capi_params_add(nixl_capi_params_t, const char* key, const char* value)}. */
    public static int paramsAdd(MemorySegment params, MemorySegment key, MemorySegment value) {
        return call(PARAMS_ADD, params, key, value);
    }

    /** {@code nixl_capi_destroy_params(nixl_capi_params_t)}. */
    public static int destroyParams(MemorySegment params) {
        return call(DESTROY_PARAMS, params);
    }

    /** {@code nixl_capi_create_backend(agent, const char* plugin, nixl_capi_params_t, nixl_capi_backend_t*)}. */
    public static int createBackend(MemorySegment agent, MemorySegment plugin, MemorySegment params,
            MemorySegment outBackend) {
        return call(CREATE_BACKEND, agent, plugin, params, outBackend);
    }

    /** {@code nixl_capi_destroy_backend(nixl_capi_backend_t)}: frees the wrapper only; the agent keeps the backend. */
    public static int destroyBackend(MemorySegment backend) {
        return call(DESTROY_BACKEND, backend);
    }

    // ================================================================ registration

    /** {@code nixl_capi_create_reg_dlist(nixl_capi_mem_type_t, nixl_capi_reg_dlist_t*)}. */
    public static int createRegDlist(int memType, MemorySegment outList) {
        return call(CREATE_REG_DLIST, memType, outList);
    }

    /** {@code nixl_capi_reg_dlist_add_desc(list, uintptr_t addr, size_t len, uint64_t dev_id, const void* meta, size_t meta_len)}. */
    public static int regDlistAddDesc(MemorySegment list, long address, long length, long deviceId, MemorySegment meta,
            long metaLength) {
        return call(REG_DLIST_ADD_DESC, list, address, length, deviceId, meta, metaLength);
    }

    /** {@code nixl_capi_destroy_reg_dlist(nixl_capi_reg_dlist_t)}. */
    public static int destroyRegDlist(MemorySegment list) {
        return call(DESTROY_REG_DLIST, list);
    }

    /** {@code nixl_capi_register_mem(nixl_capi_agent_t, nixl_capi_reg_dlist_t, nixl_capi_opt_args_t)}. */
    public static int registerMem(MemorySegment agent, MemorySegment list, MemorySegment optArgs) {
        return call(REGISTER_MEM, agent, list, optArgs);
    }

    /** {@code nixl_capi_deregister_mem(nixl_capi_agent_t, nixl_capi_reg_dlist_t, nixl_capi_opt_args_t)}. */
    public static int deregisterMem(MemorySegment agent, MemorySegment list, MemorySegment optArgs) {
        return call(DEREGISTER_MEM, agent, list, optArgs);
    }

    // ================================================================ metadata

    /** {@code nixl_capi_get_local_md(agent, void** data, size_t* len)}; {@code *data} is malloc'd: {@link #free} it. */
    public static int getLocalMd(MemorySegment agent, MemorySegment outData, MemorySegment outLength) {
        return call(GET_LOCAL_MD, agent, outData, outLength);
    }

    /** {@code nixl_capi_load_remote_md(agent, const void* data, size_t len, char** name)}; {@code *name} is strdup'd: {@link #free} it. */
    public static int loadRemoteMd(MemorySegment agent, MemorySegment data, long length, MemorySegment outName) {
        return call(LOAD_REMOTE_MD, agent, data, length, outName);
    }

    /** {@code nixl_capi_invalidate_remote_md(agent, const char* remote)}. */
    public static int invalidateRemoteMd(MemorySegment agent, MemorySegment remoteName) {
        return call(INVALIDATE_REMOTE_MD, agent, remoteName);
    }

    /** {@code nixl_capi_check_remote_md(agent, const char* remote, nixl_capi_xfer_dlist_t or NULL)}. */
    public static int checkRemoteMd(MemorySegment agent, MemorySegment remoteName, MemorySegment descs) {
        return call(CHECK_REMOTE_MD, agent, remoteName, descs);
    }

    // ================================================================ descriptor lists

    /** {@code nixl_capi_create_xfer_dlist(nixl_capi_mem_type_t, nixl_capi_xfer_dlist_t*)}. */
    public static int createXferDlist(int memType, MemorySegment outList) {
        return call(CREATE_XFER_DLIST, memType, outList);
    }

    /** {@code nixl_capi_xfer_dlist_add_desc(list, uintptr_t addr, size_t len, uint64_t dev_id)}. */
    public static int xferDlistAddDesc(MemorySegment list, long address, long length, long deviceId) {
        return call(XFER_DLIST_ADD_DESC, list, address, length, deviceId);
    }

    /** {@code nixl_capi_destroy_xfer_dlist(nixl_capi_xfer_dlist_t)}. */
    public static int destroyXferDlist(MemorySegment list) {
        return call(DESTROY_XFER_DLIST, list);
    }

    /** {@code nixl_capi_prep_xfer_dlist(agent, const char* agent_name ("" = local), list, handle*, opt)}. */
    public static int prepXferDlist(MemorySegment agent, MemorySegment agentName, MemorySegment list,
            MemorySegment outHandle, MemorySegment optArgs) {
        return call(PREP_XFER_DLIST, agent, agentName, list, outHandle, optArgs);
    }

    /** {@code nixl_capi_release_xfer_dlist_handle(agent, handle)}. */
    public static int releaseXferDlistHandle(MemorySegment agent, long handle) {
        return call(RELEASE_XFER_DLIST_HANDLE, agent, handle);
    }

    // ================================================================ transfers (the hot path)

    /**
     * {@code nixl_capi_make_xfer_req(agent, op, local_handle, const int* local_idx, size_t n,
     * remote_handle, const int* remote_idx, size_t n, nixl_capi_xfer_req_t* req, opt)}.
     */
    public static int makeXferReq(MemorySegment agent, int op, long localHandle, MemorySegment localIndices,
            long localCount, long remoteHandle, MemorySegment remoteIndices, long remoteCount,
            MemorySegment outRequest, MemorySegment optArgs) {
        return call(MAKE_XFER_REQ, agent, op, localHandle, localIndices, localCount, remoteHandle, remoteIndices,
                remoteCount, outRequest, optArgs);
    }

    /** {@code nixl_capi_post_xfer_req(agent, req, opt)}: SUCCESS (done inline), IN_PROG, or an error. May block while it copies. */
    public static int postXferReq(MemorySegment agent, long request, MemorySegment optArgs) {
        return call(POST_XFER_REQ, agent, request, optArgs);
    }

    /** {@code nixl_capi_get_xfer_status(agent, req)}: SUCCESS, IN_PROG, or an error; progresses the backend. */
    public static int getXferStatus(MemorySegment agent, long request) {
        return call(GET_XFER_STATUS, agent, request);
    }

    /** {@code nixl_capi_release_xfer_req(agent, req)}: frees NIXL's request; must precede {@link #destroyXferReq}. */
    public static int releaseXferReq(MemorySegment agent, long request) {
        return call(RELEASE_XFER_REQ, agent, request);
    }

    /** {@code nixl_capi_destroy_xfer_req(req)}: frees the wrapper; INVALID_STATE unless released first. */
    public static int destroyXferReq(long request) {
        return call(DESTROY_XFER_REQ, request);
    }

    /** {@code nixl_capi_get_xfer_telemetry(agent, req, nixl_capi_xfer_telemetry_t*)}. */
    public static int getXferTelemetry(MemorySegment agent, long request, MemorySegment outTelemetry) {
        return call(GET_XFER_TELEMETRY, agent, request, outTelemetry);
    }

    // ================================================================ notifications

    /** {@code nixl_capi_create_opt_args(nixl_capi_opt_args_t*)}. */
    public static int createOptArgs(MemorySegment outArgs) {
        return call(CREATE_OPT_ARGS, outArgs);
    }

    /** {@code nixl_capi_destroy_opt_args(nixl_capi_opt_args_t)}. */
    public static int destroyOptArgs(MemorySegment args) {
        return call(DESTROY_OPT_ARGS, args);
    }

    /**
     * {@code nixl_capi_opt_args_set_notif_msg(args, const void* data, size_t len)}: copies the message;
     * once {@link #optArgsSetHasNotif has_notif} is set, it is the notification the args carry.
     */
    public static int optArgsSetNotifMsg(MemorySegment args, MemorySegment data, long length) {
        return call(OPT_ARGS_SET_NOTIF_MSG, args, data, length);
    }

    /** {@code nixl_capi_opt_args_set_has_notif(args, bool)}: whether the args carry the message set (or set later). */
    public static int optArgsSetHasNotif(MemorySegment args, boolean hasNotif) {
        return call(OPT_ARGS_SET_HAS_NOTIF, args, hasNotif);
    }

    /** {@code nixl_capi_create_notif_map(nixl_capi_notif_map_t*)}. */
    public static int createNotifMap(MemorySegment outMap) {
        return call(CREATE_NOTIF_MAP, outMap);
    }

    /** {@code nixl_capi_destroy_notif_map(nixl_capi_notif_map_t)}. */
    public static int destroyNotifMap(MemorySegment map) {
        return call(DESTROY_NOTIF_MAP, map);
    }

    /**
     * {@code nixl_capi_get_notifs(agent, map, opt)}: <em>appends</em> the messages that reached the
     * agent to {@code map} (agent name to messages) and forgets them in NIXL; without a progress
     * thread it progresses the worker first. Takes the agent's lock exclusively.
     */
    public static int getNotifs(MemorySegment agent, MemorySegment map, MemorySegment optArgs) {
        return call(GET_NOTIFS, agent, map, optArgs);
    }

    /** {@code nixl_capi_notif_map_size(map, size_t*)}: how many sending agents the map holds. */
    public static int notifMapSize(MemorySegment map, MemorySegment outSize) {
        return call(NOTIF_MAP_SIZE, map, outSize);
    }

    /**
     * {@code nixl_capi_notif_map_get_agent_at(map, size_t index, const char**)}: the name is borrowed
     * from the map (valid until it is cleared, appended to or destroyed); {@code index} must be below
     * the size (the wrapper advances an iterator that many steps).
     */
    public static int notifMapGetAgentAt(MemorySegment map, long index, MemorySegment outName) {
        return call(NOTIF_MAP_GET_AGENT_AT, map, index, outName);
    }

    /** {@code nixl_capi_notif_map_get_notifs_size(map, const char* agent, size_t*)}. */
    public static int notifMapGetNotifsSize(MemorySegment map, MemorySegment agentName, MemorySegment outSize) {
        return call(NOTIF_MAP_GET_NOTIFS_SIZE, map, agentName, outSize);
    }

    /**
     * {@code nixl_capi_notif_map_get_notif(map, const char* agent, size_t index, const void** data,
     * size_t* len)}: the bytes are borrowed from the map, as {@link #notifMapGetAgentAt} names are.
     */
    public static int notifMapGetNotif(MemorySegment map, MemorySegment agentName, long index, MemorySegment outData,
            MemorySegment outLength) {
        return call(NOTIF_MAP_GET_NOTIF, map, agentName, index, outData, outLength);
    }

    /** {@code nixl_capi_notif_map_clear(map)}. */
    public static int notifMapClear(MemorySegment map) {
        return call(NOTIF_MAP_CLEAR, map);
    }

    /**
     * {@code nixl_capi_gen_notif(agent, const char* remote, const void* data, size_t len, opt)}: a
     * message without a transfer to a loaded remote agent; UCX sends it without waiting.
     */
    public static int genNotif(MemorySegment agent, MemorySegment remoteName, MemorySegment data, long length,
            MemorySegment optArgs) {
        return call(GEN_NOTIF, agent, remoteName, data, length, optArgs);
    }
}
