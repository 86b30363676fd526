package io.blockxfer.ucx.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.blockxfer.transport.TransportUnavailableException;
import io.blockxfer.transport.spi.Availability;
import io.blockxfer.ucx.UcxOptions;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import org.jspecify.annotations.Nullable;
import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpParams;

/**
 * Owns the UCX native libraries of this process: finds them ({@link UcxLocator}), empties
 * {@code UCX_ERROR_SIGNALS} through libc {@code setenv} before {@code libucs} loads (UCX's handlers
 * for SIGSEGV and friends would take the JVM's own signals and abort it), loads
 * {@code libucm, libucs, libuct, libucp} by absolute path so that libjucx's dependencies resolve by
 * soname without {@code LD_LIBRARY_PATH}, checks the version with {@code ucp_get_version}, and only
 * then touches a JUCX class (whose static initialiser fails for good when {@code libucp.so.0} is
 * missing). It also installs {@link UcxLogFilter}. The outcome is probed once per process and
 * cached; a load error is kept as the availability's error, never swallowed.
 *
 * <p>Every foreign function handle of the backend lives here.
 *
 * <p><b>Thread safety:</b> thread-safe; the probe runs once, under the class lock.
 */
@SuppressWarnings("restricted") // loading native code is this class's job
public final class UcxLibrary {

    private static final Linker LINKER = Linker.nativeLinker();
    private static final System.Logger LOG = System.getLogger(UcxLibrary.class.getName());
    /** The UCX release line jucx is built against: the only one it is certified with. */
    private static final int CERTIFIED_MAJOR = 1;
    private static final int CERTIFIED_MINOR = 18;

    private static volatile @Nullable Probe probe;

    /** The outcome of the one probe of this process; {@code ucp} finds libucp's functions. */
    private record Probe(Availability availability, String version, String where, @Nullable SymbolLookup ucp) {
    }

    private UcxLibrary() {
    }

    /** Whether UCX is usable in this process, and if not, why; probes on first call. */
    public static Availability availability() {
        return probe().availability;
    }

    /** The loaded UCX release, e.g. {@code 1.18.1}, or {@code ""} when none loaded. */
    public static String version() {
        return probe().version;
    }

    /** Where UCX was loaded from, for messages; {@code ""} when none loaded. */
    public static String where() {
        return probe().where;
    }

    /**
     * Makes sure UCX is loaded and JUCX usable.
     *
     * @throws TransportUnavailableException naming the cause when it is not
     */
    public static void ensureLoaded() {
        Availability a = availability();
        if (!a.isAvailable()) {
            throw new TransportUnavailableException("ucx is unavailable: " + a.cause(), a.error().orElse(null));
        }
    }

    private static Probe probe() {
        Probe p = probe;
        if (p == null) {
            synchronized (UcxLibrary.class) {
                p = probe;
                if (p == null) {
                    p = load();
                    probe = p;
                }
            }
        }
        return p;
    }

    private static Probe load() {
        // posix segments of UCX processes that were killed: gone with the first start after them
        ShmSweeper.sweep();
        UcxLocator.Location location;
        try {
            location = UcxLocator.locate();
        } catch (UcxLocator.LocationException e) {
            return unavailable(String.valueOf(e.getMessage()), e, "", "");
        }
        try {
            setenv("UCX_ERROR_SIGNALS", "");
        } catch (RuntimeException | LinkageError e) {
            return unavailable("could not empty UCX_ERROR_SIGNALS before loading UCX: " + e, e, "", "");
        }
        SymbolLookup lookup;
        if (location.isSystem()) {
            try {
                lookup = SymbolLookup.libraryLookup("libucp.so.0", Arena.global());
            } catch (IllegalArgumentException | IllegalCallerException e) {
                return unavailable("UCX not found: " + String.join("; ", location.misses())
                        + "; and no libucp.so.0 on the system's library path (" + e.getMessage() + "). Run"
                        + " scripts/install-natives ucx, or point " + UcxOptions.LIBDIR_PROPERTY + " or "
                        + UcxOptions.LIBDIR_ENV + " at a directory holding UCX " + UcxOptions.CERTIFIED_VERSIONS
                        + " libraries", e, "", "");
            }
        } else {
            for (String lib : UcxLocator.LIBRARIES) {
                Path file = Objects.requireNonNull(location.dir(), "not the system's path").resolve(lib);
                try {
                    System.load(file.toString());
                } catch (UnsatisfiedLinkError | SecurityException e) {
                    return unavailable("loading " + file + " (from " + location.origin() + ") failed: " + e.getMessage(),
                            e, "", location.toString());
                }
            }
            lookup = SymbolLookup.loaderLookup();
        }
        int[] v;
        String file;
        try {
            MemorySegment getVersion = lookup.find("ucp_get_version").orElseThrow(
                    () -> new UnsatisfiedLinkError("ucp_get_version not found in the loaded libucp"));
            v = ucpVersion(getVersion);
            file = location.isSystem() ? libraryFile(getVersion).orElse("libucp.so.0") : location.toString();
        } catch (RuntimeException | LinkageError e) {
            return unavailable("UCX from " + location + " has no usable ucp_get_version: " + e, e, "", location.toString());
        }
        String version = v[0] + "." + v[1] + "." + v[2];
        String uncertified = versionProblem(v, file);
        if (uncertified != null) {
            if (!Boolean.getBoolean(UcxOptions.ALLOW_UNCERTIFIED_PROPERTY)) {
                return unavailable(uncertified, null, version, file);
            }
            LOG.log(System.Logger.Level.WARNING, "RUNNING ON AN UNCERTIFIED UCX because " + UcxOptions
                    .ALLOW_UNCERTIFIED_PROPERTY + "=true: " + uncertified + ". Expect crashes of this JVM; peer"
                    + " descriptors are checked against UCX 1.18's formats, which this UCX may not use.");
        }
        installLogFilter(lookup).ifPresent(why -> LOG.log(System.Logger.Level.DEBUG,
                "UCX prints its own log, JUCX's line per failed request included: " + why));
        try {
            // the first JUCX class touched: its static initialiser loads libjucx, whose NEEDED
            // libucp.so.0 now resolves to the library loaded above
            new UcpContext(new UcpParams().requestRmaFeature()).close();
        } catch (RuntimeException | LinkageError e) {
            return unavailable("UCX " + version + " loaded from " + file + ", but jucx " + jucxVersion()
                    + " could not create a UCP context: " + e, e, version, file);
        }
        return new Probe(Availability.available(), version, file, lookup);
    }

    /**
     * Why UCX {@code version} (major, minor, release) loaded from {@code file} cannot serve jucx, or
     * null when it is a certified release (1.18.x).
     */
    static @Nullable String versionProblem(int[] version, String file) {
        if (version[0] == CERTIFIED_MAJOR && version[1] == CERTIFIED_MINOR) {
            return null;
        }
        boolean older = version[0] < CERTIFIED_MAJOR || (version[0] == CERTIFIED_MAJOR
                && version[1] < CERTIFIED_MINOR);
        return "UCX " + version[0] + "." + version[1] + "." + version[2] + " at " + file + " is not certified with jucx "
                + jucxVersion() + ", which works with UCX " + UcxOptions.CERTIFIED_VERSIONS + " only: its JNI library"
                + " is built against UCX " + UcxOptions.CERTIFIED_VERSIONS + (older
                        ? " and calls functions older UCX lacks, which kills the JVM on first use (Debian 12's libucx0"
                                + " is 1.13.1)"
                        : " and its internals; newer UCX crashes it (UCX 1.22.0: SIGSEGV in ucp_request_dt_dereg when a"
                                + " worker closes)")
                + ". Get UCX " + UcxOptions.CERTIFIED_VERSIONS + " with scripts/install-natives ucx (the pinned"
                + " libucx-cu12 1.18.1 wheel, into natives/ucx), or point " + UcxOptions.LIBDIR_PROPERTY + " at a UCX "
                + UcxOptions.CERTIFIED_VERSIONS + " build; -D" + UcxOptions.ALLOW_UNCERTIFIED_PROPERTY
                + "=true runs on it anyway, unsupported";
    }

    private static Probe unavailable(String cause, @Nullable Throwable error, String version, String where) {
        return new Probe(error == null ? Availability.unavailable(cause) : Availability.unavailable(cause, error),
                version, where, null);
    }

    /** libc's {@code vsnprintf}, for UCX's log messages ({@link UcxLogFilter}); null where libc lacks it. */
    private static final @Nullable MethodHandle VSNPRINTF = LINKER.defaultLookup().find("vsnprintf")
            .map(f -> LINKER.downcallHandle(f, FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS)))
            .orElse(null);
    /** The longest UCX log message kept whole ({@code UCX_LOG_BUFFER}'s default is 1 KiB). */
    private static final int LOG_MESSAGE_BYTES = 4096;

    /**
     * A UCX log message: {@code format} (a C string) with its {@code va_list} {@code args}, as
     * {@code vsnprintf} prints it, cut at {@value #LOG_MESSAGE_BYTES} bytes; null where this
     * platform has no {@code vsnprintf} or passes a {@code va_list} otherwise than by address
     * (x86-64 and aarch64 Linux pass it so).
     */
    static @Nullable String format(MemorySegment format, MemorySegment args) {
        MethodHandle vsnprintf = VSNPRINTF;
        String arch = System.getProperty("os.arch", "");
        if (vsnprintf == null || !(arch.equals("amd64") || arch.equals("x86_64") || arch.equals("aarch64"))) {
            return null;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(LOG_MESSAGE_BYTES);
            int n = (int) vsnprintf.invokeExact(buffer, (long) LOG_MESSAGE_BYTES, format, args);
            if (n < 0) {
                return null;
            }
            return buffer.getString(0, java.nio.charset.StandardCharsets.UTF_8);
        } catch (Throwable t) {
            return null;
        }
    }

    /**
     * Puts {@link UcxLogFilter#filter} in front of UCX's log printer ({@code ucs_log_push_handler}),
     * through an upcall stub kept for the life of the process.
     *
     * @return why it could not be installed, or empty
     */
    private static Optional<String> installLogFilter(SymbolLookup ucp) {
        Optional<MemorySegment> push = ucp.find("ucs_log_push_handler");
        if (push.isEmpty()) {
            return Optional.of("this UCX has no ucs_log_push_handler");
        }
        try {
            MethodHandle filter = MethodHandles.lookup().findStatic(UcxLogFilter.class, "filter",
                    MethodType.methodType(int.class, MemorySegment.class, int.class, MemorySegment.class, int.class,
                            MemorySegment.class, MemorySegment.class, MemorySegment.class));
            // ucs_log_func_t: (file, line, function, level, component config, format, va_list); a
            // va_list parameter is passed by address on x86-64 and aarch64
            MemorySegment stub = LINKER.upcallStub(filter, FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS,
                    JAVA_INT, ADDRESS, ADDRESS, ADDRESS), Arena.global());
            MethodHandle pushHandler = LINKER.downcallHandle(push.get(), FunctionDescriptor.ofVoid(ADDRESS));
            pushHandler.invokeExact(stub);
            UcxLogFilter.installed(true);
            return Optional.empty();
        } catch (Throwable t) {
            return Optional.of("installing a UCX log handler failed: " + t);
        }
    }

    /** The version of the jucx jar on the class path, from its Maven metadata. */
    static String jucxVersion() {
        try (InputStream in = UcxLibrary.class.getClassLoader()
                .getResourceAsStream("META-INF/maven/org.openucx/jucx/pom.properties")) {
            if (in == null) {
                return "(unknown version)";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "(unknown version)");
        } catch (IOException | RuntimeException e) {
            return "(unknown version)";
        }
    }

    // ------------------------------------------------------------------ foreign functions

    /** libc {@code setenv(name, value, 1)}. */
    static void setenv(String name, String value) {
        MethodHandle h = LINKER.downcallHandle(libc("setenv"), FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
        try (Arena arena = Arena.ofConfined()) {
            int rc = (int) h.invokeExact(arena.allocateFrom(name), arena.allocateFrom(value), 1);
            if (rc != 0) {
                throw new IllegalStateException("setenv(" + name + ") returned " + rc);
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("setenv(" + name + ") failed", t);
        }
    }

    /** {@code ucp_get_version(&major, &minor, &release)}. */
    private static int[] ucpVersion(MemorySegment function) {
        MethodHandle h = LINKER.downcallHandle(function, FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, ADDRESS));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT, 3);
            h.invokeExact(out, out.asSlice(4), out.asSlice(8));
            return new int[] {out.getAtIndex(JAVA_INT, 0), out.getAtIndex(JAVA_INT, 1), out.getAtIndex(JAVA_INT, 2)};
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("ucp_get_version failed", t);
        }
    }

    /** The file of the shared object that holds {@code symbol}, through {@code dladdr}. */
    private static Optional<String> libraryFile(MemorySegment symbol) {
        Optional<MemorySegment> dladdr = LINKER.defaultLookup().find("dladdr");
        if (dladdr.isEmpty()) {
            return Optional.empty();
        }
        MethodHandle h = LINKER.downcallHandle(dladdr.get(), FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment info = arena.allocate(4 * ADDRESS.byteSize(), ADDRESS.byteAlignment());
            int ok = (int) h.invokeExact(symbol, info);
            MemorySegment name = info.get(ADDRESS, 0);
            return ok == 0 || name.address() == 0 ? Optional.empty() : Optional.of(name.reinterpret(4096).getString(0));
        } catch (Throwable t) {
            return Optional.empty();
        }
    }

    /**
     * {@code ucp_rkey_ptr}: where the peer's memory at {@code remoteAddress}, reached through the
     * unpacked remote key {@code rkey}, is mapped in this process, when its transport mapped it here
     * (shared memory); 0 when it did not (the key reaches the memory only through the network or a
     * software-emulated protocol). The mapping lives as long as the remote key. UCX computes the
     * address without bounds: callers check it against this process's mappings.
     *
     * @param rkey the {@code ucp_rkey_h} of an unpacked remote key
     */
    static long rkeyPtr(long rkey, long remoteAddress) {
        MethodHandle h = RkeyPtr.HANDLE;
        if (h == null || rkey == 0) {
            return 0;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            int status = (int) h.invokeExact(MemorySegment.ofAddress(rkey), remoteAddress, out);
            return status == 0 ? out.get(ADDRESS, 0).address() : 0;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("ucp_rkey_ptr failed", t);
        }
    }

    /** The {@code ucp_rkey_ptr} handle, made on first use (null when UCX did not load). */
    private static final class RkeyPtr {
        static final @Nullable MethodHandle HANDLE = ucpHandle("ucp_rkey_ptr",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS));
    }

    private static @Nullable MethodHandle ucpHandle(String name, FunctionDescriptor descriptor) {
        Probe p = probe();
        if (p.ucp == null) {
            return null;
        }
        return p.ucp.find(name).map(f -> LINKER.downcallHandle(f, descriptor)).orElse(null);
    }

    /**
     * A SysV shared-memory segment as the kernel describes it ({@code shmctl(IPC_STAT)}).
     *
     * @param size the segment's size in bytes
     * @param creatorPid the pid of the process that created it
     */
    record SysvSegment(long size, long creatorPid) {
    }

    /** {@code IPC_STAT}. */
    private static final int IPC_STAT = 2;
    /** Offsets in the LP64 Linux {@code struct shmid_ds} (x86_64 and aarch64 alike). */
    private static final long SHM_SEGSZ_OFFSET = 48;
    private static final long SHM_CPID_OFFSET = 80;
    private static final long SHMID_DS_BYTES = 112;
    private static final StructLayout ERRNO_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = ERRNO_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    /**
     * The segment {@code shmid}, through {@code shmctl(shmid, IPC_STAT)}.
     *
     * @throws IllegalArgumentException naming the errno when the kernel does not describe it (no
     *     such segment, removed, or not readable by this user)
     */
    static SysvSegment sysvSegment(int shmid) {
        MethodHandle h = Shmctl.HANDLE;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(ERRNO_STATE);
            MemorySegment ds = arena.allocate(SHMID_DS_BYTES, 8);
            int rc = (int) h.invokeExact(state, shmid, IPC_STAT, ds);
            if (rc != 0) {
                int errno = (int) ERRNO.get(state, 0L);
                throw new IllegalArgumentException("shmctl(" + shmid + ", IPC_STAT) failed with errno " + errno
                        + errnoName(errno));
            }
            return new SysvSegment(ds.get(JAVA_LONG, SHM_SEGSZ_OFFSET), ds.get(JAVA_INT, SHM_CPID_OFFSET));
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("shmctl failed", t);
        }
    }

    /** What {@link #removeIfUnused} did. */
    enum Removal {
        /** The file was unused and is gone. */
        REMOVED,
        /** Another open file (an open descriptor or a mapping) holds it; it stays. */
        IN_USE,
        /** This kernel or file system cannot tell (no file leases): nothing was done. */
        CANNOT_TELL
    }

    private static final int O_RDONLY_NOFOLLOW_CLOEXEC = 0x20000 | 0x80000;
    private static final int F_SETLEASE = 1024;
    private static final int F_WRLCK = 1;
    private static final int F_UNLCK = 2;
    private static final int EAGAIN = 11;

    /**
     * Removes {@code file} if no process has it open or mapped, which the kernel tells by granting
     * a write lease ({@code fcntl(F_SETLEASE, F_WRLCK)} succeeds only while no other open file of it
     * exists, and a mapping keeps its file open). The file is unlinked while the lease is held, so
     * nobody can open it in between.
     */
    static Removal removeIfUnused(Path file) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(ERRNO_STATE);
            int fd = (int) FileCalls.OPEN.invokeExact(state, arena.allocateFrom(file.toString()),
                    O_RDONLY_NOFOLLOW_CLOEXEC);
            if (fd < 0) {
                return Removal.CANNOT_TELL;
            }
            try {
                int rc = (int) FileCalls.FCNTL.invokeExact(state, fd, F_SETLEASE, F_WRLCK);
                if (rc != 0) {
                    return (int) ERRNO.get(state, 0L) == EAGAIN ? Removal.IN_USE : Removal.CANNOT_TELL;
                }
                try {
                    java.nio.file.Files.deleteIfExists(file);
                } finally {
                    int ignored = (int) FileCalls.FCNTL.invokeExact(state, fd, F_SETLEASE, F_UNLCK);
                }
                return Removal.REMOVED;
            } finally {
                int ignored = (int) FileCalls.CLOSE.invokeExact(fd);
            }
        } catch (java.io.IOException | RuntimeException e) {
            return Removal.CANNOT_TELL;
        } catch (Throwable t) {
            throw new IllegalStateException("file lease calls failed", t);
        }
    }

    /** {@code open}, {@code fcntl} and {@code close}, made on first use. */
    private static final class FileCalls {
        static final MethodHandle OPEN = LINKER.downcallHandle(libc("open"),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), Linker.Option.firstVariadicArg(2),
                Linker.Option.captureCallState("errno"));
        static final MethodHandle FCNTL = LINKER.downcallHandle(libc("fcntl"),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), Linker.Option.firstVariadicArg(2),
                Linker.Option.captureCallState("errno"));
        static final MethodHandle CLOSE = LINKER.downcallHandle(libc("close"),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    }

    /** The {@code shmctl} handle, made on first use. */
    private static final class Shmctl {
        static final MethodHandle HANDLE = LINKER.downcallHandle(libc("shmctl"),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS), Linker.Option.captureCallState("errno"));
    }

    /** {@code POLLIN} of {@code poll(2)}. */
    private static final short POLLIN = 1;
    /** {@code struct pollfd}: {@code int fd; short events; short revents}. */
    static final long POLLFD_BYTES = 8;

    /**
     * Waits until {@code fd} is readable or {@code timeoutMillis} passed, through {@code poll(2)}
     * with the caller's {@code pollfd} (of {@link #POLLFD_BYTES}, reused by one thread). Returns
     * early, and says nothing, on a signal that interrupted the call (the caller looks again).
     *
     * @return whether the descriptor was readable
     */
    static boolean pollReadable(MemorySegment pollfd, int fd, int timeoutMillis) {
        pollfd.set(JAVA_INT, 0, fd);
        pollfd.set(JAVA_SHORT, 4, POLLIN);
        pollfd.set(JAVA_SHORT, 6, (short) 0);
        try {
            return (int) Poll.HANDLE.invokeExact(pollfd, 1L, timeoutMillis) > 0;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("poll failed", t);
        }
    }

    /** The {@code poll} handle, made on first use. */
    private static final class Poll {
        static final MethodHandle HANDLE = LINKER.downcallHandle(libc("poll"),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    }

    private static String errnoName(int errno) {
        return switch (errno) {
            case 2 -> " (ENOENT)";
            case 13 -> " (EACCES: not this user's segment)";
            case 22 -> " (EINVAL: no such segment)";
            case 43 -> " (EIDRM: removed)";
            default -> "";
        };
    }

    private static MemorySegment libc(String name) {
        return LINKER.defaultLookup().find(name).orElseThrow(() -> new UnsatisfiedLinkError("libc has no " + name));
    }
}
