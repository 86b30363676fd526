package io.blockxfer.benchmarks.baseline;

import io.blockxfer.nixl.internal.RegionMemory;
import io.blockxfer.transport.ProgressMode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Fair baselines in one run ({@code scripts/bench-nixl}, {@code scripts/bench-ucx}): every
 * contender runs the same {@link BaselineCase}s, one transfer in flight, on distinct blocks,
 * interleaved round by round (the order rotates each round, each contender set up afresh), after a
 * round that is not counted of the contenders in this JVM (JIT warm-up), and the report gives each
 * one's median and range over the rounds, the load average of each round, the ratios that matter,
 * and what each contender cost where it counts it (status calls per transfer, cores).
 *
 * <pre>
 * BaselineMain nixl [--rounds 5] [--seconds 2] [--only NAME,...] [--pages huge|4k]
 *     every region on the same pages: transparent huge pages (the default: what the NIXL backend and
 *     numpy allocate) or 4 KiB pages (what an allocator that does not ask for huge pages gives, torch's
 *     CPU tensors among them); the Java NIXL backend with the Python original's agent configuration (4 UCX threads, telemetry,
 *     a progress thread that never sleeps), its caller spinning on poll and waiting in the transport,
 *     and with the backend's defaults; NIXL's Python API driven
 *     like the original (nixl_driver.py); the same C calls over libnixl_capi.so, compiled here with
 *     gcc (nixl_floor.c); memcpy in Java and in C; and Java, Python and C with a notification on every
 *     transfer, which the target takes after each (the "(notify)" contenders)
 * BaselineMain ucx [--rounds 5] [--seconds 2] [--only NAME,...] [--perftest PATH]
 *     the Java UCX backend (target in a child JVM); raw JUCX (the same, without blockxfer); memcpy;
 *     ucx_perftest from the same UCX build when PATH is given
 * </pre>
 * The natives come from {@code blockxfer.natives.dir} ({@code scripts/install-natives}).
 *
 * <p><b>Thread safety:</b> a program.
 */
public final class BaselineMain {

    private BaselineMain() {
    }

    /**
     * Runs one baseline set.
     *
     * @param args {@code nixl} or {@code ucx}, then options
     */
    public static void main(String[] args) throws Exception {
        if (args.length == 0 || !(args[0].equals("nixl") || args[0].equals("ucx"))) {
            System.err.println("usage: BaselineMain nixl|ucx [--rounds N] [--seconds S] [--only NAME,...]"
                    + " [--perftest PATH]");
            System.exit(2);
        }
        int rounds = 5;
        double seconds = 2;
        List<String> only = List.of();
        Path perftest = null;
        boolean hugePages = true;
        for (int i = 1; i < args.length; i++) {
            switch (args[i]) {
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--seconds" -> seconds = Double.parseDouble(args[++i]);
                case "--only" -> only = List.of(args[++i].split(",", -1));
                case "--perftest" -> perftest = Path.of(args[++i]);
                case "--pages" -> hugePages = switch (args[++i]) {
                    case "huge" -> true;
                    case "4k" -> false;
                    default -> {
                        System.err.println("BaselineMain: --pages takes huge or 4k, not " + args[i]);
                        System.exit(2);
                        yield true;
                    }
                };
                default -> {
                    System.err.println("BaselineMain: unknown argument " + args[i]);
                    System.exit(2);
                }
            }
        }
        Path natives = Path.of(System.getProperty("blockxfer.natives.dir", "natives")).toAbsolutePath();
        Path scratch = Files.createTempDirectory("blockxfer-baselines");
        try {
            List<Contender> contenders = args[0].equals("nixl") ? nixl(natives, scratch, hugePages)
                    : ucx(natives, perftest);
            List<String> chosen = only;
            contenders.removeIf(c -> !chosen.isEmpty() && !chosen.contains(c.name()));
            run(args[0], contenders, rounds, seconds);
        } finally {
            try (var files = Files.walk(scratch)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static List<Contender> nixl(Path natives, Path scratch, boolean hugePages)
            throws IOException, InterruptedException {
        System.out.println("pages: every contender's regions on " + (hugePages
                ? "transparent huge pages (nixl.hugePages=true, numpy's madvise, madvise in C)"
                : "4 KiB pages (nixl.hugePages=false, NUMPY_MADVISE_HUGEPAGE=0, no madvise in C)")
                + "; the kernel's mode: " + RegionMemory.transparentHugePageMode());
        String pages = Boolean.toString(hugePages);
        Map<String, String> original = new LinkedHashMap<>();
        original.put("nixl.hugePages", pages);
        original.put("nixl.ucx.num_threads", "4");
        original.put("nixl.telemetry", "true");
        original.put("nixl.progressThread", "true");
        original.put("nixl.progressDelayMicros", "0");
        Path libs = natives.resolve("nixl/.nixl_cu12.mesonpy.libs");
        Map<String, String> nixlEnv = Map.of("NIXL_PLUGIN_DIR", libs.resolve("plugins").toString(),
                "NIXL_FLOOR_HUGE_PAGES", hugePages ? "1" : "0");
        Path python = extract("nixl_driver.py", scratch);
        Map<String, String> pyEnv = new LinkedHashMap<>(nixlEnv);
        pyEnv.put("PYTHONPATH", natives.resolve("nixl") + ":" + natives.resolve("python"));
        pyEnv.put("NUMPY_MADVISE_HUGEPAGE", hugePages ? "1" : "0");
        String floor = scratch.resolve("nixl_floor").toString();
        String cProblem = compile(extract("nixl_floor.c", scratch), floor, libs);
        List<Contender> list = new ArrayList<>();
        // the original's agent as NIXL runs it: its own progress thread rhythm and UCX's spinlock
        list.add(new TransportContender("Java NIXL", "nixl", original, ProgressMode.BACKEND_THREAD, false));
        // the same agent, its caller waiting in the transport instead of spinning on poll
        list.add(new TransportContender("Java NIXL (wait)", "nixl", original, ProgressMode.BACKEND_THREAD, false,
                TransportContender.Caller.WAIT));
        // the same agent settings, with the worker's lock a mutex (the polling-thread progress mode, what
        // 'blockxfer bench' runs by default): NIXL's delay-0 progress thread then sleeps on the lock
        // instead of spinning against the caller that holds it
        list.add(new TransportContender("Java NIXL (mutex)", "nixl", original, ProgressMode.POLLING_THREAD, false));
        list.add(new TransportContender("Java NIXL (wait/mutex)", "nixl", original, ProgressMode.POLLING_THREAD,
                false, TransportContender.Caller.WAIT));
        list.add(new TransportContender("Java NIXL (defaults)", "nixl", Map.of("nixl.hugePages", pages),
                ProgressMode.AUTO, false));
        // the same as Java NIXL with a notification on every transfer, taken by the target after each
        list.add(TransportContender.notifying("Java NIXL (notify)", "nixl", original, ProgressMode.BACKEND_THREAD));
        // the backend's defaults with a notification on every transfer
        list.add(TransportContender.notifying("Java NIXL (defaults/notify)", "nixl", Map.of("nixl.hugePages", pages),
                ProgressMode.AUTO));
        list.add(new DriverContender("Python NIXL", "NIXL's Python API, called as vLLM's NixlTransport calls it,"
                + " its agent configured the same (num_threads=4, capture_telemetry=True, progress thread)",
                List.of("python3", python.toString()), pyEnv, null));
        if (hugePages) {
            // the original on memory its caller allocated without asking for huge pages, as torch's CPU
            // tensors are by default: what the pages alone are worth, in the same run
            Map<String, String> smallPages = new LinkedHashMap<>(pyEnv);
            smallPages.put("NUMPY_MADVISE_HUGEPAGE", "0");
            list.add(new DriverContender("Python NIXL (4 KiB pages)", "the same, its regions on 4 KiB pages (numpy"
                    + " told not to ask for huge pages, as torch's CPU tensors are allocated by default)",
                    List.of("python3", python.toString()), smallPages, null));
        }
        Map<String, String> pyNotify = new LinkedHashMap<>(pyEnv);
        pyNotify.put("NIXL_DRIVER_NOTIFY", "1");
        list.add(new DriverContender("Python NIXL (notify)", "the same with a 16-byte notif_msg on every transfer,"
                + " taken by the target with get_new_notifs() after each", List.of("python3", python.toString()),
                pyNotify, null));
        list.add(new DriverContender("C NIXL", "the same calls in C over libnixl_capi.so (the floor), same agent"
                + " configuration", List.of(floor, "nixl"), nixlEnv, cProblem));
        list.add(new DriverContender("C NIXL (notify)", "the same with a 16-byte notification on every transfer (opt"
                + " args made once, the message set per transfer), taken by the target with get_notifs after each",
                List.of(floor, "nixl-notify"), nixlEnv, cProblem));
        list.add(new MemcpyContender(hugePages));
        list.add(new DriverContender("memcpy (C)", "C memcpy of the same blocks, one block at a time",
                List.of(floor, "memcpy"), nixlEnv, cProblem));
        return list;
    }

    private static List<Contender> ucx(Path natives, @Nullable Path perftest) {
        List<Contender> list = new ArrayList<>();
        list.add(new TransportContender("Java UCX", "ucx", Map.of(), ProgressMode.AUTO, true));
        list.add(new RawJucx());
        list.add(new MemcpyContender(false));
        if (perftest != null) {
            Path ucx = natives.resolve("ucx");
            list.add(new PerftestContender(perftest, Map.of("LD_LIBRARY_PATH", ucx.resolve("libucx/lib") + ":"
                    + ucx.resolve("libucx_cu12.libs"), "UCX_MM_ERROR_HANDLING", "y", "UCX_WARN_UNUSED_ENV_VARS", "n")));
        }
        return list;
    }

    /** Copies a driver from the class path into {@code dir}. */
    private static Path extract(String resource, Path dir) throws IOException {
        Path file = dir.resolve(resource);
        try (InputStream in = BaselineMain.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IOException("missing resource " + resource);
            }
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
        }
        return file;
    }

    /** Compiles the C driver against the wheel's libnixl_capi.so; why it could not, or null. */
    private static @Nullable String compile(Path source, String binary, Path libs)
            throws IOException, InterruptedException {
        if (!Files.isRegularFile(libs.resolve("libnixl_capi.so"))) {
            return "no libnixl_capi.so in " + libs + " (scripts/install-natives nixl)";
        }
        Process gcc;
        try {
            gcc = new ProcessBuilder("gcc", "-O2", "-std=c11", "-Wall", "-o", binary, source.toString(),
                    "-L" + libs, "-lnixl_capi", "-Wl,-rpath," + libs).redirectErrorStream(true).start();
        } catch (IOException e) {
            return "no C compiler: " + e.getMessage();
        }
        String out = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (!gcc.waitFor(120, TimeUnit.SECONDS) || gcc.exitValue() != 0) {
            return "gcc failed: " + out;
        }
        return null;
    }

    private static void run(String set, List<Contender> all, int rounds, double seconds) {
        List<Contender> contenders = new ArrayList<>();
        for (Contender c : all) {
            String why = c.unavailable();
            if (why == null) {
                contenders.add(c);
            } else {
                System.out.println("leaving out " + c.name() + ": " + why);
            }
        }
        System.out.printf(Locale.ROOT, "%s baselines: %d rounds x %.1f s per case, interleaved (the order rotates"
                + " each round), one transfer in flight, distinct blocks; %d CPUs%n", set, rounds, seconds,
                Runtime.getRuntime().availableProcessors());
        for (Contender c : contenders) {
            System.out.println("  " + c.name() + ": " + c.description());
        }
        List<BaselineCase> cases = List.of(BaselineCase.values());
        Map<String, Map<BaselineCase, Samples>> results = new LinkedHashMap<>();
        contenders.forEach(c -> results.put(c.name(), new EnumMap<>(BaselineCase.class)));
        Map<String, Map<BaselineCase, Samples>> checks = new LinkedHashMap<>();
        Map<String, Map<BaselineCase, Samples>> cores = new LinkedHashMap<>();
        Map<String, Map<BaselineCase, Samples>> hugePages = new LinkedHashMap<>();
        List<String> loads = new ArrayList<>();
        // what runs in this JVM is compiled by the JIT as it runs: one round that is not counted, so
        // that the JIT's threads do not compete in the first counted round (the drivers start afresh
        // each round and carry nothing over)
        double warmSeconds = Math.max(1, seconds / 2);
        System.out.printf(Locale.ROOT, "warm-up round, not counted (%.1f s per case):", warmSeconds);
        for (Contender c : contenders) {
            if (c.inThisJvm()) {
                try {
                    c.round(cases, warmSeconds);
                    System.out.print(" " + c.name() + " ok;");
                } catch (Exception | Error e) {
                    System.out.print(" " + c.name() + " FAILED (" + e + ");");
                }
                System.out.flush();
            }
        }
        System.out.println();
        for (int r = 0; r < rounds; r++) {
            String load = loadAverage();
            loads.add(load);
            System.out.printf(Locale.ROOT, "round %d of %d (load average %s):", r + 1, rounds, load);
            for (int i = 0; i < contenders.size(); i++) {
                Contender c = contenders.get((i + r) % contenders.size());
                try {
                    Map<BaselineCase, Double> rates = c.round(cases, seconds);
                    Map<BaselineCase, Samples> samples = results.computeIfAbsent(c.name(),
                            n -> new EnumMap<>(BaselineCase.class));
                    rates.forEach((k, v) -> samples.computeIfAbsent(k, x -> new Samples()).add(v));
                    c.lastCosts().forEach((k, v) -> {
                        checks.computeIfAbsent(c.name(), n -> new EnumMap<>(BaselineCase.class))
                                .computeIfAbsent(k, x -> new Samples()).add(v.checksPerTransfer());
                        cores.computeIfAbsent(c.name(), n -> new EnumMap<>(BaselineCase.class))
                                .computeIfAbsent(k, x -> new Samples()).add(v.cores());
                        if (!Double.isNaN(v.hugePageShare())) {
                            hugePages.computeIfAbsent(c.name(), n -> new EnumMap<>(BaselineCase.class))
                                    .computeIfAbsent(k, x -> new Samples()).add(v.hugePageShare());
                        }
                    });
                    System.out.print(" " + c.name() + " ok;");
                } catch (Exception | Error e) {
                    System.out.print(" " + c.name() + " FAILED (" + e + ");");
                }
                System.out.flush();
            }
            System.out.println();
        }
        System.out.println();
        report(set, contenders, cases, results, loads, loadAverage());
        if (!checks.isEmpty()) {
            System.out.println();
            System.out.println("what it cost, median (min-max) over the rounds, warm-up included: status calls per transfer"
                    + " (poll, check_xfer_state, get_xfer_status or wait), and cores of the contender's process:");
            table(contenders, cases, checks, "status calls per transfer");
            table(contenders, cases, cores, "cores");
        }
        if (!hugePages.isEmpty()) {
            System.out.println();
            System.out.println("the pages under the regions: the share of the initiator's and the target's regions in"
                    + " transparent huge pages at the end of each case (from the process's /proc/self/smaps):");
            table(contenders, cases, hugePages, "share in huge pages");
        }
    }

    private static void table(List<Contender> contenders, List<BaselineCase> cases,
            Map<String, Map<BaselineCase, Samples>> values, String what) {
        StringBuilder header = new StringBuilder("| " + what + " |");
        StringBuilder rule = new StringBuilder("|---|");
        List<Contender> shown = contenders.stream().filter(c -> values.containsKey(c.name())).toList();
        for (Contender c : shown) {
            header.append(' ').append(c.name()).append(" |");
            rule.append("---|");
        }
        System.out.println(header);
        System.out.println(rule);
        for (BaselineCase k : cases) {
            StringBuilder row = new StringBuilder("| " + k.title() + " |");
            for (Contender c : shown) {
                Samples s = values.getOrDefault(c.name(), Map.of()).get(k);
                row.append(' ').append(s == null ? "-" : s.cell()).append(" |");
            }
            System.out.println(row);
        }
    }

    private static void report(String set, List<Contender> contenders, List<BaselineCase> cases,
            Map<String, Map<BaselineCase, Samples>> results, List<String> loads, String loadAfter) {
        StringBuilder header = new StringBuilder("| case |");
        StringBuilder rule = new StringBuilder("|---|");
        for (Contender c : contenders) {
            header.append(' ').append(c.name()).append(" |");
            rule.append("---|");
        }
        System.out.println("median (min-max) over the rounds:");
        System.out.println(header);
        System.out.println(rule);
        for (BaselineCase k : cases) {
            StringBuilder row = new StringBuilder("| " + k.title() + " |");
            for (Contender c : contenders) {
                Samples s = results.getOrDefault(c.name(), Map.of()).get(k);
                row.append(' ').append(s == null ? "-" : s.cell()).append(" |");
            }
            System.out.println(row);
        }
        System.out.println("load average (1, 5, 15 min) at the start of each round: " + String.join("; ", loads)
                + "; after: " + loadAfter);
        System.out.println();
        System.out.println("ratios of the medians (small = 1 x 4 KiB transfers/s, large = 64 x 256 KiB GB/s):");
        List<String[]> pairs = new ArrayList<>();
        if (set.equals("nixl")) {
            pairs.add(new String[] {"Java NIXL", "C NIXL"});
            pairs.add(new String[] {"Java NIXL", "Python NIXL"});
            pairs.add(new String[] {"Java NIXL (wait)", "Python NIXL"});
            pairs.add(new String[] {"Java NIXL (wait)", "Python NIXL (4 KiB pages)"});
            pairs.add(new String[] {"Python NIXL", "Python NIXL (4 KiB pages)"});
            pairs.add(new String[] {"Java NIXL (wait)", "Java NIXL"});
            pairs.add(new String[] {"Java NIXL (mutex)", "Python NIXL"});
            pairs.add(new String[] {"Java NIXL (wait/mutex)", "Python NIXL"});
            pairs.add(new String[] {"Java NIXL (defaults)", "C NIXL"});
            pairs.add(new String[] {"Python NIXL", "C NIXL"});
            pairs.add(new String[] {"Java NIXL (notify)", "C NIXL (notify)"});
            pairs.add(new String[] {"Java NIXL (notify)", "Python NIXL (notify)"});
            pairs.add(new String[] {"Java NIXL (notify)", "Java NIXL"});
            pairs.add(new String[] {"Java NIXL (defaults/notify)", "Java NIXL (defaults)"});
            pairs.add(new String[] {"C NIXL (notify)", "C NIXL"});
            pairs.add(new String[] {"Python NIXL (notify)", "Python NIXL"});
        } else {
            pairs.add(new String[] {"Java UCX", "raw JUCX"});
            pairs.add(new String[] {"Java UCX", "ucx_perftest"});
            pairs.add(new String[] {"raw JUCX", "ucx_perftest"});
        }
        for (Contender c : contenders) {
            if (!c.name().startsWith("memcpy")) {
                pairs.add(new String[] {c.name(), "memcpy (Java)"});
            }
        }
        for (String[] p : pairs) {
            Map<BaselineCase, Samples> a = results.get(p[0]);
            Map<BaselineCase, Samples> b = results.get(p[1]);
            if (a == null || b == null) {
                continue;
            }
            StringBuilder line = new StringBuilder("  " + p[0] + " / " + p[1] + ":");
            for (BaselineCase k : cases) {
                Samples x = a.get(k);
                Samples y = b.get(k);
                line.append(' ').append(k.key()).append(' ').append(x == null || y == null ? "-"
                        : String.format(Locale.ROOT, "%.2f", x.median() / y.median()));
            }
            System.out.println(line);
        }
    }

    private static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+", -1);
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }
}
