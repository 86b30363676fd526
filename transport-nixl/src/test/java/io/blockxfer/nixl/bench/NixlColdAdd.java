package io.blockxfer.nixl.bench;

import io.blockxfer.nixl.NixlInterop;
import io.blockxfer.nixl.NixlProvider;
import io.blockxfer.tck.process.ChildJvm;
import io.blockxfer.tck.process.ChildProcess;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;

/**
 * The cold first {@code addPeer} of a 20,000-block NIXL peer, each in a fresh process: the time a
 * service pays when it adds its first peer right after start.
 *
 * <ul>
 *   <li>{@code run N [pythonPath]}: starts a target JVM ({@code serve}) holding 20,000 blocks of
 *       4 KiB, then N fresh JVMs ({@code add}) and, with a Python path, N fresh {@code python3}
 *       interpreters running NIXL's Python API ({@code nixl_python_cold_add.py}) the way the Python
 *       original adds a peer, interleaved; prints every figure, then the median and range of each.</li>
 *   <li>{@code serve DIR BLOCKS}: opens the target transport, writes its descriptor (and NIXL's raw
 *       blob and the geometry for Python) into DIR, prints {@code READY}, and stays until stdin closes.</li>
 *   <li>{@code add DIR}: opens a 4-block transport, then times the first {@code addPeer} of the
 *       descriptor in DIR and prints {@code COLD} (wall ms), {@code CPU} (ms of CPU time of every
 *       thread of the process during it: JIT compilers, NIXL's progress thread) and {@code THREAD}
 *       (ms of CPU time of the calling thread), then {@code WARM [ms...]} of 5 later adds.
 *       {@code -Dcold.threads=true} also prints each thread's CPU time during the add.</li>
 * </ul>
 * The timing covers {@code addPeer} alone, as the Python side covers {@code add_remote_agent},
 * building the block descriptors and {@code prep_xfer_dlist}; opening the transport (and importing
 * NIXL) is outside both. The CPU times are what stays comparable on a loaded machine, where the
 * wall time mostly measures the scheduler. {@code -Dcold.childFlags="..."} passes JVM flags to the
 * {@code add} children (JFR, {@code -Xlog:class+load}) for diagnosis.
 *
 * <p><b>Thread safety:</b> a program; one thread.
 */
public final class NixlColdAdd {

    static final int BLOCKS = 20_000;
    static final long BLOCK = 4096;
    /** The system properties a child gets: where the natives are and which NIXL to load. */
    private static final Set<String> FORWARDED = Set.of("blockxfer.natives.dir", "blockxfer.nixl.lib",
            "blockxfer.nixl.version");
    /** How long a child may print nothing before it counts as hung. */
    private static final Duration CHILD_WAIT = Duration.ofMinutes(5);

    @SuppressWarnings("restricted")
    private static final MethodHandle CLOCK_GETTIME = Linker.nativeLinker().downcallHandle(
            Linker.nativeLinker().defaultLookup().find("clock_gettime").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
    private static final MemorySegment TIMESPEC = Arena.global().allocate(16, 8);

    private NixlColdAdd() {
    }

    /**
     * Arguments: {@code run N [pythonPath]}, {@code serve DIR BLOCKS} or {@code add DIR}.
     *
     * @param args the mode and its arguments
     * @throws Exception if a child process fails
     */
    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "serve" -> serve(Path.of(args[1]), Integer.parseInt(args[2]));
            case "add" -> add(Path.of(args[1]));
            case "run" -> run(Integer.parseInt(args[1]), args.length > 2 ? args[2] : null);
            default -> throw new IllegalArgumentException("usage: run N [pythonPath] | serve DIR BLOCKS | add DIR");
        }
    }

    private static TransportConfig config(String name, int blocks) {
        return TransportConfig.builder(RegionSpec.allocate(blocks, BLOCK)).agentName(name)
                .closeTimeout(Duration.ofSeconds(5)).build();
    }

    private static void serve(Path dir, int blocks) throws IOException {
        try (DataTransport t = new NixlProvider().open(config("cold-target", blocks))) {
            PeerDescriptor d = t.localDescriptor();
            Files.write(dir.resolve("descriptor.bin"), d.encode());
            Files.write(dir.resolve("nixl.md"), NixlInterop.nixlMetadata(t.agentMetadata()));
            Files.writeString(dir.resolve("geometry.txt"), d.baseAddress() + " " + d.numBlocks() + " "
                    + d.blockLength() + "\n");
            System.out.println("READY");
            System.out.flush();
            while (System.in.read() >= 0) {
                // serve until the parent closes stdin
            }
        }
    }

    private static void add(Path dir) throws IOException {
        PeerDescriptor d = PeerDescriptor.decode(Files.readAllBytes(dir.resolve("descriptor.bin")));
        try (DataTransport t = new NixlProvider().open(config("cold-initiator", 4))) {
            Map<String, Long> before = Boolean.getBoolean("cold.threads") ? perThread() : null;
            long c0 = processCpuNanos();
            long th0 = threadCpuNanos();
            long t0 = System.nanoTime();
            t.addPeer("target", d);
            long cold = System.nanoTime() - t0;
            long thEnd = threadCpuNanos();
            long coldThread = thEnd - th0;
            long coldCpu = processCpuNanos() - c0;
            if (before != null) {
                Map<String, Long> after = perThread();
                after.forEach((k, v) -> {
                    long delta = v - before.getOrDefault(k, 0L);
                    if (delta > 500_000) {
                        System.out.printf(Locale.ROOT, "THREADCPU %s %.2f%n", k, delta / 1e6);
                    }
                });
            }
            t.removePeer("target");
            double[] warm = new double[5];
            for (int i = 0; i < warm.length; i++) {
                long s = System.nanoTime();
                t.addPeer("target", d);
                warm[i] = (System.nanoTime() - s) / 1e6;
                t.removePeer("target");
            }
            System.out.printf(Locale.ROOT, "COLD %.2f%n", cold / 1e6);
            System.out.printf(Locale.ROOT, "CPU %.2f%n", coldCpu / 1e6);
            System.out.printf(Locale.ROOT, "THREAD %.2f%n", coldThread / 1e6);
            System.out.printf(Locale.ROOT, "WARM %s%n", Arrays.toString(warm));
        }
    }

    private static void run(int n, String pythonPath) throws Exception {
        Path dir = Files.createTempDirectory("nixl-cold-add");
        try (ChildJvm target = coldJvm("serve", dir.toString(), Integer.toString(BLOCKS))
                .exitGrace(Duration.ofSeconds(30)).start()) {
            String ready = target.nextLine(Duration.ofMinutes(5));
            if (!"READY".equals(ready)) {
                throw new IllegalStateException("target answered " + ready);
            }
            double[] javaCold = new double[n];
            double[] pyCold = new double[n];
            double[] javaCpu = new double[n];
            double[] pyCpu = new double[n];
            double[] javaThread = new double[n];
            double[] pyThread = new double[n];
            Path script = dir.resolve("nixl_python_cold_add.py");
            try (var in = NixlColdAdd.class.getResourceAsStream("/io/blockxfer/nixl/nixl_python_cold_add.py")) {
                Files.copy(in, script);
            }
            for (int i = 0; i < n; i++) {
                List<String> java1;
                try (ChildJvm add = coldJvm("add", dir.toString()).start()) {
                    java1 = figures(add::nextLineIfAny, add::awaitExit, add::describe);
                }
                javaCold[i] = value(java1, "COLD");
                javaCpu[i] = value(java1, "CPU");
                javaThread[i] = value(java1, "THREAD");
                System.out.println("java   run " + (i + 1) + ": " + String.join("; ", java1));
                if (pythonPath != null) {
                    List<String> py;
                    try (ChildProcess add = ChildProcess.builder(List.of("python3", script.toString(), dir.toString()))
                            .environment("PYTHONPATH", pythonPath).start()) {
                        py = figures(add::nextLineIfAny, add::awaitExit, add::describe);
                    }
                    pyCold[i] = value(py, "COLD");
                    pyCpu[i] = value(py, "CPU");
                    pyThread[i] = value(py, "THREAD");
                    System.out.println("python run " + (i + 1) + ": " + String.join("; ", py));
                }
            }
            System.out.println(summary("java   cold first addPeer of 20,000 blocks, wall ms", javaCold));
            System.out.println(summary("java   cold first addPeer of 20,000 blocks, process CPU ms", javaCpu));
            System.out.println(summary("java   cold first addPeer of 20,000 blocks, calling thread CPU ms", javaThread));
            if (pythonPath != null) {
                System.out.println(summary("python cold first add (add_remote_agent + descs + prep), wall ms",
                        pyCold));
                System.out.println(summary("python cold first add (add_remote_agent + descs + prep), process CPU ms",
                        pyCpu));
                System.out.println(summary("python cold first add (add_remote_agent + descs + prep), calling thread"
                        + " CPU ms", pyThread));
            }
        }
    }

    /**
     * A fresh child JVM running this class with {@code args}: this JVM's {@code java} from
     * {@code java.home}, native access, where the natives are, and nothing that warms it.
     */
    private static ChildJvm.Builder coldJvm(String... args) {
        List<String> flags = new ArrayList<>();
        // extra child JVM flags for diagnosis (JFR, class-load logging): -Dcold.childFlags="a b"
        for (String f : System.getProperty("cold.childFlags", "").split(" ", -1)) {
            if (!f.isBlank()) {
                flags.add(f);
            }
        }
        return ChildJvm.builder(NixlColdAdd.class).javaBinary(Path.of(System.getProperty("java.home"), "bin", "java"))
                .forwardSystemProperties(FORWARDED::contains).jvmArgs(flags).args(args);
    }

    /** The figure lines a child prints before it exits; fails unless it exits with 0 after printing some. */
    private static List<String> figures(Function<Duration, Optional<String>> nextLine, ToIntFunction<Duration> exit,
            Supplier<String> describe) {
        List<String> lines = new ArrayList<>();
        for (Optional<String> l = nextLine.apply(CHILD_WAIT); l.isPresent(); l = nextLine.apply(CHILD_WAIT)) {
            String line = l.get();
            if (line.startsWith("COLD") || line.startsWith("CPU") || line.startsWith("THREAD")
                    || line.startsWith("WARM")) {
                lines.add(line);
            }
        }
        int status = exit.applyAsInt(CHILD_WAIT);
        if (status != 0 || lines.isEmpty()) {
            throw new IllegalStateException(describe.get() + " failed (exit " + status + "): " + lines);
        }
        return lines;
    }

    private static double value(List<String> lines, String key) {
        return lines.stream().filter(l -> l.startsWith(key + " ")).mapToDouble(l -> Double.parseDouble(
                l.substring(key.length() + 1).strip())).findFirst().orElseThrow();
    }

    private static String summary(String what, double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        double median = s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
        return String.format(Locale.ROOT, "%s: median %.1f, range %.1f-%.1f (%d fresh processes; load average %s)",
                what, median, s[0], s[s.length - 1], s.length, loadAverage());
    }

    /** CPU time per thread of this process ({@code tid:name}, scheduler statistics, nanoseconds). */
    static Map<String, Long> perThread() throws IOException {
        Map<String, Long> m = new TreeMap<>();
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.toList()) {
                try {
                    m.put(task.getFileName() + ":" + Files.readString(task.resolve("comm")).strip(),
                            Long.parseLong(Files.readString(task.resolve("schedstat")).split(" ", 2)[0]));
                } catch (IOException e) {
                    // the thread ended meanwhile
                }
            }
        }
        return m;
    }


    /** {@code clock_gettime(clock)} in nanoseconds: 2 = this process's CPU time, 3 = this thread's. */
    static synchronized long clock(int id) {
        try {
            int rc = (int) CLOCK_GETTIME.invokeExact(id, TIMESPEC);
            if (rc != 0) {
                throw new IllegalStateException("clock_gettime(" + id + ") failed");
            }
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        return TIMESPEC.get(ValueLayout.JAVA_LONG, 0) * 1_000_000_000L + TIMESPEC.get(ValueLayout.JAVA_LONG, 8);
    }

    /** CPU time of the calling thread so far (nanoseconds). */
    static long threadCpuNanos() {
        return clock(3);
    }

    /** CPU time of every thread of this process so far (nanoseconds). */
    static long processCpuNanos() {
        return clock(2);
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ", 4)[0];
        } catch (IOException e) {
            return "unknown";
        }
    }
}
