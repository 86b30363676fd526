package io.blockxfer.cli;

import io.blockxfer.cli.internal.BenchRow;
import io.blockxfer.cli.internal.BenchRunner;
import io.blockxfer.cli.internal.BenchSettings;
import io.blockxfer.cli.internal.BlockLayout;
import io.blockxfer.cli.internal.ByteSizeConverter;
import io.blockxfer.cli.internal.CliException;
import io.blockxfer.cli.internal.DurationConverter;
import io.blockxfer.cli.internal.IdleStrategy;
import io.blockxfer.cli.internal.JfrRecording;
import io.blockxfer.cli.internal.ProgressBar;
import io.blockxfer.cli.internal.ProviderSource;
import io.blockxfer.cli.internal.RowFormats;
import io.blockxfer.cli.internal.SvgChart;
import io.blockxfer.transport.TransferOp;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code blockxfer bench}: a two-peer transfer benchmark. For each backend, operation, block size
 * and batch size it reports GB/s, transfers/s and the p50/p99 latency of a transfer (submit to the
 * poll that reports it, with a bounded window in flight) beside the memcpy ceiling of the same
 * blocks measured in the same run. Output as a table, {@code --json} or {@code --csv}, and
 * optionally an SVG chart.
 *
 * <p><b>Thread safety:</b> not thread-safe; one instance per invocation.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Benchmarks one-sided transfers between two peers against MemorySegment.copy of the same"
                + " blocks.",
            "Latency is per transfer, from submit to the poll that reports it, with up to WINDOW in flight."})
public final class BenchCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private ProviderSource source;

    @Option(names = "--backend", split = ",", paramLabel = "NAME", defaultValue = "loopback",
            description = "Backends to measure, comma separated: a name, 'auto' (the best available) or 'all'"
                    + " (every available one). Default: ${DEFAULT-VALUE}.")
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
            description = "Measuring time per point (e.g. 500ms, 2s). Default: ${DEFAULT-VALUE}.")
    private Duration duration;

    @Option(names = "--processes", paramLabel = "1|2", defaultValue = "1",
            description = "1: both peers in this process; 2: the target in a child JVM. Default: ${DEFAULT-VALUE}.")
    private int processes;

    @Option(names = "--layout", paramLabel = "LAYOUT", defaultValue = "shuffled",
            description = "Block pairing: shuffled (remote blocks permuted, nothing coalesces) or contiguous."
                    + " Default: ${DEFAULT-VALUE}.")
    private BlockLayout layout;

    @Option(names = "--poll", paramLabel = "IDLE", defaultValue = "backoff",
            description = "After an empty poll: backoff (spin, yield, then park a few us; frees the core for the"
                    + " backend's threads) or spin (lowest latency, keeps a core busy). Default: ${DEFAULT-VALUE}.")
    private IdleStrategy poll;

    @Option(names = "--max-memory", paramLabel = "SIZE", converter = ByteSizeConverter.class,
            description = "The most region memory one point may use. Default: half of the physical memory.")
    private Long maxMemory;

    @ArgGroup(exclusive = true)
    private Format format = new Format();

    @Option(names = "--chart", paramLabel = "FILE", description = "Also write an SVG chart of GB/s by block size.")
    private Path chart;

    @Option(names = "--jfr", paramLabel = "FILE",
            description = "Also record the run with JFR (the JDK's default profile and blockxfer's events) into FILE.")
    private Path jfr;

    /** For picocli. */
    public BenchCommand() {
    }

    /**
     * The output formats, at most one.
     *
     * <p><b>Thread safety:</b> not thread-safe.
     */
    static final class Format {
        @Option(names = "--json", description = "Print a JSON array of rows instead of the table.")
        boolean json;

        @Option(names = "--csv", description = "Print CSV instead of the table.")
        boolean csv;
    }

    @Override
    public Integer call() {
        BenchSettings settings = settings();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        ProgressBar progress = format.json || format.csv ? ProgressBar.off() : ProgressBar.onTerminal(err);
        List<BenchRow> rows;
        if (jfr == null) {
            rows = new BenchRunner(source, settings, progress, err).run();
        } else {
            try (JfrRecording recording = JfrRecording.start(jfr)) {
                rows = new BenchRunner(source, settings, progress, err).run();
            }
        }
        if (format.json) {
            RowFormats.json(rows, out);
        } else if (format.csv) {
            RowFormats.csv(rows, out);
        } else {
            out.println(summary(settings));
            RowFormats.table(rows, out);
        }
        if (chart != null) {
            writeChart(rows);
            if (!format.json && !format.csv) {
                out.println("chart written to " + chart);
            }
        }
        if (jfr != null && !format.json && !format.csv) {
            out.println("JFR recording written to " + jfr);
        }
        out.flush();
        return 0;
    }

    private BenchSettings settings() {
        if (processes != 1 && processes != 2) {
            throw CliException.usage("--processes must be 1 or 2, not " + processes);
        }
        if (window < 0 || window > 4096) {
            throw CliException.usage("--window must be between 0 (auto) and 4096, not " + window);
        }
        for (int b : batches) {
            if (b < 1 || b > 1 << 20) {
                throw CliException.usage("--batches must be between 1 and 1048576 blocks, not " + b);
            }
        }
        if (backends.stream().anyMatch(String::isBlank)) {
            throw CliException.usage("--backend names must not be empty");
        }
        long limit = maxMemory == null ? 0 : maxMemory;
        return new BenchSettings(backends, ops.stream().distinct().toList(),
                blockSizes.stream().distinct().toList(), batches.stream().distinct().toList(), window, duration,
                processes, layout, poll, limit);
    }

    private String summary(BenchSettings s) {
        String placement = s.processes() == 2 ? "target in a child process" : "both peers in this process";
        return String.format(Locale.ROOT, "blockxfer bench: %s, %s blocks, %s per point; GB/s = 10^9 bytes/s;"
                + " memcpy = MemorySegment.copy of the same blocks;%n"
                + "latency = submit to the poll that reports the transfer, with WINDOW transfers in flight", placement,
                s.layout().name().toLowerCase(Locale.ROOT), humanDuration(s.duration()));
    }

    private static String humanDuration(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    private void writeChart(List<BenchRow> rows) {
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
