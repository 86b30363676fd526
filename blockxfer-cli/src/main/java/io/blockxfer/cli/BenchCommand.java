package io.blockxfer.cli;

import io.blockxfer.cli.internal.BenchDirectoryOptions;
import io.blockxfer.cli.internal.BenchRow;
import io.blockxfer.cli.internal.BenchRunner;
import io.blockxfer.cli.internal.BenchSettings;
import io.blockxfer.cli.internal.BlockLayout;
import io.blockxfer.cli.internal.ByteSizeConverter;
import io.blockxfer.cli.internal.CliException;
import io.blockxfer.cli.internal.CpuHog;
import io.blockxfer.cli.internal.DurationConverter;
import io.blockxfer.cli.internal.HostPort;
import io.blockxfer.cli.internal.JfrRecording;
import io.blockxfer.cli.internal.KeyFile;
import io.blockxfer.cli.internal.LocalSite;
import io.blockxfer.cli.internal.MemoryBudget;
import io.blockxfer.cli.internal.NotifyLines;
import io.blockxfer.cli.internal.Pacer;
import io.blockxfer.cli.internal.Placement;
import io.blockxfer.cli.internal.PollStyle;
import io.blockxfer.cli.internal.ProgressBar;
import io.blockxfer.cli.internal.ProviderSource;
import io.blockxfer.cli.internal.Recommendation;
import io.blockxfer.cli.internal.Recommendations;
import io.blockxfer.cli.internal.RowFormats;
import io.blockxfer.cli.internal.StopSignal;
import io.blockxfer.cli.internal.SvgChart;
import io.blockxfer.cli.internal.TakerStyle;
import io.blockxfer.cli.internal.TargetSite;
import io.blockxfer.cli.internal.Tuning;
import io.blockxfer.cli.internal.remote.BenchClient;
import io.blockxfer.cli.internal.remote.BenchDirectory;
import io.blockxfer.cli.internal.remote.BenchServer;
import io.blockxfer.cli.internal.remote.ControlProtocol;
import io.blockxfer.cli.internal.remote.RemoteSite;
import io.blockxfer.cli.internal.remote.ServerConfig;
import io.blockxfer.cli.internal.remote.ServerEntry;
import io.blockxfer.transport.ProgressMode;
import io.blockxfer.transport.TransferOp;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.Spec;

/**
 * {@code blockxfer bench}: a two-peer transfer benchmark. For each backend, operation, block size,
 * batch size and caller loop it reports GB/s, transfers/s, the p50/p99/p99.9/max latency of a
 * transfer (submit to the poll that reports it, with a bounded window in flight) and the CPU it
 * took, beside the memcpy ceiling of the same blocks measured in the same run. The target lives in
 * this process, in a child JVM ({@code --processes 2}), or on another host that runs
 * {@code bench --serve} ({@code --connect HOST:PORT}); between hosts the run also measures the
 * wire's own ceiling (a plain TCP stream of the same blocks, and memcpy on each host) and ends
 * with a recommendation per block size. Output as a table, {@code --json} or {@code --csv}, and
 * optionally an SVG chart.
 *
 * <p><b>Thread safety:</b> not thread-safe; one instance per invocation.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Benchmarks one-sided transfers between two peers against MemorySegment.copy of the same"
                + " blocks.",
            "Latency is per transfer, from submit to the poll that reports it, with up to WINDOW in flight.",
            "CPU is the CPU time of this process (all threads, Java and native) while transfers ran: as cores"
                + " (CPU time / wall time) and as microseconds per transfer. With --processes 2 or --connect it is"
                + " the initiator's process only; with both peers in this process it includes the target's"
                + " threads.",
            "Between two hosts: run 'bench --serve' on the target host and 'bench --connect HOST:PORT' on the"
                + " initiator; or meet in etcd: 'bench --serve --directory etcd://HOST:PORT' and 'bench --connect"
                + " --directory etcd://HOST:PORT'."})
public final class BenchCommand implements Callable<Integer> {

    /** Options that shape the measurement, which the initiator chooses; refused with {@code --serve}. */
    private static final List<String> INITIATOR_OPTIONS = List.of("--ops", "--block-sizes", "--batches", "--window",
            "--duration", "--processes", "--layout", "--poll", "--poll-interval", "--progress", "--rate", "--json",
            "--csv", "--chart", "--jfr", "--notify", "--notify-take");

    /** The highest {@code --rate}: one submission per 10 ns is already more than any backend does. */
    private static final double MAX_RATE = 100_000_000;

    @Spec
    private CommandSpec spec;

    @Mixin
    private ProviderSource source;

    @Option(names = "--backend", split = ",", paramLabel = "NAME", defaultValue = "loopback",
            description = "Backends to measure, comma separated: a name, 'auto' (the best available) or 'all'"
                    + " (every available one). Default: loopback, or all with --connect and --serve.")
    private List<String> backends;

    @Option(names = "--ops", split = ",", paramLabel = "OP", defaultValue = "write,read",
            description = "Operations: write, read. Default: ${DEFAULT-VALUE}.")
    private List<TransferOp> ops;

    @Option(names = "--block-sizes", split = ",", paramLabel = "SIZE", defaultValue = "64K,256K,2M",
            converter = ByteSizeConverter.class,
            description = "Block sizes (K, M, G suffixes are powers of 1024). Default: ${DEFAULT-VALUE}.")
    private List<Long> blockSizes;

    @Option(names = "--batches", split = ",", paramLabel = "BLOCKS", defaultValue = "64",
            description = "Blocks per transfer. Default: ${DEFAULT-VALUE}.")
    private List<Integer> batches;

    @Option(names = "--window", paramLabel = "N", defaultValue = "0",
            description = "Transfers kept in flight; 0 sizes it to about 128 MiB in flight, 2 to 16 transfers."
                    + " Default: auto.")
    private int window;

    @Option(names = "--duration", paramLabel = "TIME", defaultValue = "1s", converter = DurationConverter.class,
            description = "Measuring time per point and poll style (e.g. 500ms, 2s). Default: ${DEFAULT-VALUE}.")
    private Duration duration;

    @Option(names = "--processes", paramLabel = "1|2", defaultValue = "1",
            description = "1: both peers in this process; 2: the target in a child JVM. Default: ${DEFAULT-VALUE}.")
    private int processes;

    @Option(names = "--connect", paramLabel = "HOST:PORT", arity = "0..1", fallbackValue = "",
            description = "Measure against targets on another host, served there by 'bench --serve' (port "
                    + ControlProtocol.DEFAULT_PORT + " unless given). With --directory, give no HOST:PORT: the"
                    + " server is found in the directory.")
    private @Nullable String connect;

    @Option(names = "--serve", description = "Serve targets to initiators that '--connect', one after another,"
            + " until Ctrl-C.")
    private boolean serve;

    @Option(names = "--listen", paramLabel = "HOST:PORT",
            description = "With --serve: where to listen. Default: 0.0.0.0:" + ControlProtocol.DEFAULT_PORT + ".")
    private @Nullable String listen;

    @Mixin
    private BenchDirectoryOptions meet;

    @Option(names = "--layout", paramLabel = "LAYOUT", defaultValue = "shuffled",
            description = "Block pairing: shuffled (remote blocks permuted, nothing coalesces) or contiguous."
                    + " Default: ${DEFAULT-VALUE}.")
    private BlockLayout layout;

    @Option(names = "--poll", split = ",", paramLabel = "STYLE", defaultValue = "backoff",
            description = "The caller's loop, comma separated to compare: spin (poll again at once), backoff (spin,"
                    + " yield, then park a few us), interval (poll once per --poll-interval), wait (block in the"
                    + " transport's wait until a transfer ended), join (submit asynchronously, block on the"
                    + " oldest future), callback (submit asynchronously, a dependent of each future hands it"
                    + " back). Default: ${DEFAULT-VALUE}.")
    private List<PollStyle> polls;

    @Option(names = "--poll-interval", paramLabel = "TIME", defaultValue = "100us",
            converter = DurationConverter.class,
            description = "The period of --poll interval. Default: ${DEFAULT-VALUE}.")
    private Duration pollInterval;

    @Option(names = "--rate", paramLabel = "N",
            description = "Submit N transfers per second on a fixed schedule (at most " + Pacer.CATCH_UP
                    + " late ones back to back, missed ones dropped) instead of keeping the window full; the row"
                    + " shows the rate achieved and the CPU it took. Default: unpaced.")
    private @Nullable Double rate;

    @Option(names = "--progress", paramLabel = "MODE", defaultValue = "auto",
            description = "Which thread advances transfers: auto (the backend's choice), polling (the caller's"
                    + " polls drive progress where the backend can) or backend (only the backend's thread)."
                    + " Default: ${DEFAULT-VALUE}.")
    private String progress;

    @Option(names = "--key-file", paramLabel = "FILE",
            description = "The deployment key file (lines KEY_ID=BASE64, the signing key first; private to its owner)."
                    + " With --serve and --connect both sides must hold it: control frames and descriptors are then"
                    + " authenticated. Default: the file named by $" + KeyFile.ENVIRONMENT + ", else none.")
    private @Nullable Path keyFile;

    @Option(names = "--notify", description = "Also measure every caller loop with a notification on every"
            + " transfer, interleaved with the loop without: transfers/s against it (xPLAIN), and the latency from"
            + " the submit to the notification seen at the target (NOTE P50/P99). Backends without notifications"
            + " get no notified rows.")
    private boolean notify;

    @Option(names = "--notify-take", paramLabel = "STYLE", defaultValue = "wait",
            description = "How the target's thread takes the notifications of --notify: wait (the waiting poll,"
                    + " pollNotifications(handler, limit): no core spent, a notification that finds the thread"
                    + " parked waits for its wake-up) or spin (the non-blocking poll again at once: a core busy"
                    + " taking, as a scheduler that looks at every step). Default: ${DEFAULT-VALUE}.")
    private TakerStyle notifyTaker;

    @Option(names = "--hog", description = "Run a CPU hog on every core of this host during the run.")
    private boolean hog;

    @Option(names = "--option", paramLabel = "KEY=VALUE",
            description = "A backend option for every transport on this host, e.g. ucx.net_devices=eth0 (repeat"
                    + " for more).")
    private List<String> options = new ArrayList<>();

    @Option(names = "--max-memory", paramLabel = "SIZE", converter = ByteSizeConverter.class,
            description = "The most region memory one point (with --serve: one session) may use here. Default:"
                    + " half of the physical memory.")
    private @Nullable Long maxMemory;

    @ArgGroup(exclusive = true)
    private Format format = new Format();

    @Option(names = "--chart", paramLabel = "FILE", description = "Also write an SVG chart of GB/s by block size.")
    private @Nullable Path chart;

    @Option(names = "--jfr", paramLabel = "FILE",
            description = "Also record the run with JFR (the JDK's default profile and blockxfer's events) into FILE.")
    private @Nullable Path jfr;

    // read by ErrorHandlers from the parse result: picocli only needs the option declared here
    @SuppressWarnings("UnusedVariable")
    @Option(names = "--verbose", description = "On failure, also print the long form: every backend's cause,"
            + " library paths, the server's own words.")
    private boolean verbose;

    /** The key file, once {@link #keys()} read it; null when there is none. */
    private @Nullable KeyFile loadedKeys;
    private boolean keysLoaded;
    /** How the summary names the remote target: the --connect address, or the server found in the directory. */
    private @Nullable String remoteLabel;

    /** For picocli. */
    public BenchCommand() {
    }

    /**
     * The output formats, at most one.
     *
     * <p><b>Thread safety:</b> not thread-safe.
     */
    static final class Format {
        @Option(names = "--json", description = "Print JSON instead of the table: {\"rows\": [...],"
                + " \"recommendations\": [...]}.")
        boolean json;

        @Option(names = "--csv", description = "Print the rows as CSV instead of the table (no recommendations).")
        boolean csv;
    }

    @Override
    public Integer call() {
        meet.check(spec.commandLine().getParseResult(), serve, connect);
        if (serve) {
            return serve();
        }
        BenchSettings settings = settings();
        try (TargetSite site = site(settings)) {
            List<BenchRow> rows = measure(settings, site);
            print(settings, site, rows);
        }
        return 0;
    }

    private TargetSite site(BenchSettings settings) {
        if (connect != null) {
            // named backends that could never cross to another host are bad usage, before any connection
            for (String name : settings.backends()) {
                if (!name.equals("all")) {
                    RemoteSite.localRefusal(source.select(name)).ifPresent(r -> {
                        throw r.toException();
                    });
                }
            }
            BenchDirectory where = meet.directory();
            if (where == null) {
                remoteLabel = connect;
                return new RemoteSite(BenchClient.connect(address(connect, "--connect"), keys()));
            }
            ServerEntry found = where.list(keys().map(KeyFile::ring), meet.target()).choose(meet.target());
            String origin = "bench server '" + found.name() + "', found in " + where.where();
            remoteLabel = found.control() + ", " + origin;
            try {
                return new RemoteSite(BenchClient.connect(found.control(), keys()));
            } catch (CliException e) {
                throw new CliException(e.getMessage() + " (" + origin + ")", e.exitCode(), e.getCause())
                        .withDetail(e.detail().orElse(null));
            }
        }
        return processes == 2 ? LocalSite.childProcess() : LocalSite.inProcess();
    }

    private List<BenchRow> measure(BenchSettings settings, TargetSite site) {
        PrintWriter err = spec.commandLine().getErr();
        ProgressBar bar = format.json || format.csv ? ProgressBar.off() : ProgressBar.onTerminal(err);
        try (CpuHog cpuHog = settings.hog() ? CpuHog.start() : null) {
            if (cpuHog != null && !format.json && !format.csv) {
                err.println("bench: a CPU hog runs " + cpuHog.threads() + " busy threads (pid " + cpuHog.pid() + ")");
            }
            BenchRunner runner = new BenchRunner(source, settings, site, bar, err);
            if (jfr == null) {
                return runner.run();
            }
            JfrRecording recording = JfrRecording.start(jfr);
            try (recording) {
                return runner.run();
            }
        }
    }

    private void print(BenchSettings settings, TargetSite site, List<BenchRow> rows) {
        PrintWriter out = spec.commandLine().getOut();
        List<Recommendation> advice = Recommendations.of(rows);
        if (format.json) {
            RowFormats.json(rows, advice, out);
        } else if (format.csv) {
            RowFormats.csv(rows, out);
        } else {
            out.println(summary(settings, site));
            RowFormats.table(rows, out);
            if (!advice.isEmpty()) {
                out.println();
                advice.forEach(r -> out.println("recommendation: " + r.line()));
            }
        }
        if (chart != null) {
            writeChart(chart, rows);
            if (!format.json && !format.csv) {
                out.println("chart written to " + chart);
            }
        }
        if (jfr != null && !format.json && !format.csv) {
            out.println("JFR recording written to " + jfr);
        }
        out.flush();
    }

    /** {@code --serve}: serves targets until Ctrl-C (or SIGTERM), then closes them and exits. */
    private int serve() {
        ParseResult parsed = spec.commandLine().getParseResult();
        for (String option : INITIATOR_OPTIONS) {
            if (parsed.hasMatchedOption(option)) {
                throw CliException.usage(option + " is for the initiator ('bench --connect'), not for --serve");
            }
        }
        if (connect != null) {
            throw CliException.usage("--serve and --connect exclude each other: serve on the target host, connect"
                    + " from the initiator");
        }
        HostPort at = address(listen == null ? "0.0.0.0:" + ControlProtocol.DEFAULT_PORT : listen, "--listen");
        BenchDirectory where = meet.directory();
        List<String> names = parsed.hasMatchedOption("--backend") ? backends.stream()
                .filter(b -> !b.equals("all")).toList() : List.of();
        ServerConfig config = new ServerConfig(source.providers(), names, options(),
                MemoryBudget.of(maxMemory == null ? 0 : maxMemory).limitBytes(), keys());
        if (config.servedNames().isEmpty()) {
            throw new CliException("nothing to serve: no backend here can reach another process"
                    + (names.isEmpty() ? "" : " among " + names) + " (see 'blockxfer backends')");
        }
        PrintWriter out = spec.commandLine().getOut();
        BenchServer server = BenchServer.bind(at.resolve(), config, out);
        String bound = HostPort.parse(server.address().getHostString() + ":" + server.address().getPort(), 0)
                .toString();
        BenchDirectory.Announcement announcement = null;
        if (where != null) {
            try {
                ServerEntry entry = new ServerEntry(meet.serverName(), ControlProtocol.VERSION,
                        where.advertised(server.address(), meet.advertise()),
                        ServerConfig.hostName(), config.servedNames(), config.keys().isPresent());
                announcement = where.announce(entry, config.keyRing(), line -> {
                    synchronized (out) {
                        out.println("bench server: " + line);
                        out.flush();
                    }
                });
            } catch (RuntimeException e) {
                server.close();
                throw e;
            }
        }
        BenchDirectory.Announcement published = announcement;
        if (config.keys().isEmpty()) {
            PrintWriter err = spec.commandLine().getErr();
            err.println("blockxfer bench: warning: no deployment key (--key-file or " + KeyFile.ENVIRONMENT + "):"
                    + " anyone who can reach " + bound + " can drive this server");
            err.flush();
        }
        Thread stopper = new Thread(() -> {
            if (published != null) {
                published.close(); // first: no initiator finds a server that is going away
            }
            server.stop();
            server.awaitStopped(Duration.ofSeconds(30));
        }, "bench-server-stop");
        Runtime.getRuntime().addShutdownHook(stopper);
        try (CpuHog cpuHog = hog ? CpuHog.start() : null) {
            out.println("blockxfer bench: serving " + String.join(", ", config.servedNames()) + " on " + bound
                    + " (" + config.keys().map(k -> "authenticated with " + k).orElse("unauthenticated")
                    + (cpuHog != null ? "; CPU hog on " + cpuHog.threads() + " cores" : "") + "); "
                    + (published == null || where == null ? "" : "published as '" + published.entry().name() + "' in "
                            + where.where() + ", at " + published.entry().control() + "; ")
                    + StopSignal.hint());
            out.flush();
            server.serve();
        } finally {
            if (published != null) {
                published.close();
            }
            try {
                Runtime.getRuntime().removeShutdownHook(stopper);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running: it waits for serve() to have cleaned up
            }
        }
        return 0;
    }

    private BenchSettings settings() {
        if (processes != 1 && processes != 2) {
            throw CliException.usage("--processes must be 1 or 2, not " + processes);
        }
        if (connect != null && processes == 2) {
            throw CliException.usage("--connect and --processes 2 exclude each other: the target is on the other"
                    + " host");
        }
        if (listen != null) {
            throw CliException.usage("--listen is for --serve");
        }
        if (processes == 2 && KeyFile.locate(keyFile, System.getenv()).isPresent()) {
            throw CliException.usage("--processes 2 cannot use a deployment key"
                    + (keyFile == null ? " (" + KeyFile.ENVIRONMENT + " is set)" : "") + ": the target process cannot"
                    + " hold one; use --processes 1, or --serve and --connect");
        }
        if (window < 0 || window > 4096) {
            throw CliException.usage("--window must be between 0 (auto) and 4096, not " + window);
        }
        for (int b : batches) {
            if (b < 1 || b > 1 << 20) {
                throw CliException.usage("--batches must be between 1 and 1048576 blocks, not " + b);
            }
        }
        if (rate != null && !(rate > 0 && rate <= MAX_RATE)) {
            throw CliException.usage("--rate must be more than 0 and at most " + (long) MAX_RATE
                    + " transfers per second, not " + rate);
        }
        if (!notify && spec.commandLine().getParseResult().hasMatchedOption("--notify-take")) {
            throw CliException.usage("--notify-take says how the target takes the notifications of --notify: give"
                    + " --notify too");
        }
        if (duration.toMillis() < 1) {
            throw CliException.usage("--duration must be at least 1ms");
        }
        if (backends.stream().anyMatch(String::isBlank)) {
            throw CliException.usage("--backend names must not be empty");
        }
        List<String> names = connect != null && !spec.commandLine().getParseResult().hasMatchedOption("--backend")
                ? List.of("all") : backends;
        long limit = maxMemory == null ? 0 : maxMemory;
        return new BenchSettings(names, ops.stream().distinct().toList(), blockSizes.stream().distinct().toList(),
                batches.stream().distinct().toList(), window, duration, layout, polls.stream().distinct().toList(),
                pollInterval, new Tuning(progressMode(), options(), keys().map(KeyFile::ring)), hog, limit,
                rate == null ? 0 : rate, notify, notifyTaker);
    }

    /** The key file of {@code --key-file} or {@value KeyFile#ENVIRONMENT}, read and checked once. */
    private Optional<KeyFile> keys() {
        if (!keysLoaded) {
            boolean fromEnvironment = keyFile == null;
            loadedKeys = KeyFile.locate(keyFile, System.getenv()).map(path -> KeyFile.load(path, fromEnvironment))
                    .orElse(null);
            keysLoaded = true;
        }
        return Optional.ofNullable(loadedKeys);
    }

    private ProgressMode progressMode() {
        return switch (progress.toLowerCase(Locale.ROOT)) {
            case "auto" -> ProgressMode.AUTO;
            case "polling", "polling_thread" -> ProgressMode.POLLING_THREAD;
            case "backend", "backend_thread" -> ProgressMode.BACKEND_THREAD;
            default -> throw CliException.usage("--progress must be auto, polling or backend, not '" + progress + "'");
        };
    }

    private Map<String, String> options() {
        Map<String, String> map = new LinkedHashMap<>();
        for (String kv : options) {
            int eq = kv.indexOf('=');
            if (eq <= 0) {
                throw CliException.usage("--option must be KEY=VALUE, not '" + kv + "'");
            }
            map.put(kv.substring(0, eq).strip(), kv.substring(eq + 1).strip());
        }
        return map;
    }

    private static HostPort address(String text, String option) {
        try {
            return HostPort.parse(text, ControlProtocol.DEFAULT_PORT);
        } catch (IllegalArgumentException e) {
            throw CliException.usage(option + ": " + e.getMessage());
        }
    }

    private String summary(BenchSettings s, TargetSite site) {
        String placement = switch (site.placement()) {
            case IN_PROCESS -> "both peers in this process";
            case CHILD_PROCESS -> "target in a child process";
            case REMOTE -> "target on " + ((RemoteSite) site).serverName() + " (" + remoteLabel + ")";
        } + keys().map(k -> ", descriptors" + (site.placement() == Placement.REMOTE ? " and control frames" : "")
                + " authenticated with key '" + k.signingKeyId() + "'").orElse("");
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "blockxfer bench: %s, %s blocks, %s per point; GB/s = 10^9 bytes/s;"
                + " memcpy = MemorySegment.copy of the same blocks here;%n", placement,
                s.layout().name().toLowerCase(Locale.ROOT), humanDuration(s.duration())));
        sb.append("latency = submit to the poll that reports the transfer, with WINDOW transfers in flight;"
                + " CPU = cores this process used (" + (site.placement() == Placement.IN_PROCESS ? "both peers"
                : "the initiator's process only") + "), CPU us/T = its CPU time per transfer");
        if (s.rate() > 0) {
            sb.append(String.format(Locale.ROOT, ";%npaced: %,.0f transfers/s submitted on a fixed schedule (PACED/s),"
                    + " TRANSFERS/s is the rate achieved", s.rate()));
        }
        if (s.withNotifications()) {
            sb.append(String.format(Locale.ROOT, ";%n")).append(NotifyLines.legend(site.placement(), notifyTaker));
        }
        if (site.placement() == Placement.REMOTE) {
            sb.append(String.format(Locale.ROOT, ";%nTCP = a plain TCP stream of the same blocks between the hosts"
                    + " (the wire's ceiling), xTCP = GB/s over it"));
        }
        return sb.toString();
    }

    private static String humanDuration(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    private static void writeChart(Path chart, List<BenchRow> rows) {
        try {
            Path parent = chart.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.writeString(chart, SvgChart.render(rows), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new CliException("could not write the chart to " + chart + ": " + e.getMessage());
        }
    }
}
