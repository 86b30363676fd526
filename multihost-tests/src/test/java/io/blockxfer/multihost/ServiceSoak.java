package io.blockxfer.multihost;

import io.blockxfer.tck.process.UcxShmFiles;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.TransportUnavailableException;
import io.blockxfer.transport.Transports;
import io.blockxfer.transport.spi.TransportProvider;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The service soak (one initiator process, one backend): the initiator opens one transport,
 * starts its targets ({@link PeerMain} processes on this host, or transports in this JVM for
 * loopback), streams verified writes and reads to each with a {@link PeerSession}, and for the
 * given time removes and re-adds a peer every 100 ms and kills (SIGKILL) and restarts a target
 * other than the last every 15 s ({@link SoakConductor}), sampling its own file descriptors,
 * threads and RSS. Then it stops everything, checks the targets' memory, ends every child by its
 * pid, removes the UCX POSIX segments its killed children left, and reports ({@link SoakReport}).
 *
 * <p>Exit status: {@value #PASSED} passed, {@value #FAILED} failed, {@value #SETUP_ERROR} bad
 * arguments or a target that could not start, {@value #UNAVAILABLE} the backend is not available
 * here (the cause is printed and written to {@code result.txt}). {@code scripts/soak} runs it
 * through {@link SoakLauncher}, which sets the backend's environment.
 *
 * <p><b>Thread safety:</b> a program.
 */
public final class ServiceSoak {

    static final int PASSED = 0;
    static final int FAILED = 1;
    static final int SETUP_ERROR = 2;
    static final int UNAVAILABLE = 3;

    private final SoakSettings settings;

    private ServiceSoak(SoakSettings settings) {
        this.settings = settings;
    }

    /** Runs one soak; see the class comment for the exit status. */
    public static void main(String[] args) {
        SoakSettings settings;
        try {
            settings = SoakSettings.parse(args);
            settings.profile();
        } catch (IllegalArgumentException e) {
            System.err.println("soak: " + e.getMessage());
            System.exit(SETUP_ERROR);
            return;
        }
        exitWithParent();
        int status;
        try {
            status = new ServiceSoak(settings).run();
        } catch (IOException | RuntimeException e) {
            e.printStackTrace();
            status = SETUP_ERROR;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            status = SETUP_ERROR;
        }
        System.exit(status);
    }

    /**
     * Ends this process when the one that started it ends (a test JVM that died, a launcher stopped
     * with Ctrl-C): its targets then exit too, because their control channels close.
     */
    private static void exitWithParent() {
        ProcessHandle.current().parent().ifPresent(parent -> {
            // nothing waits for the dependent stage: it only halts this JVM
            var unused = parent.onExit().thenRun(() -> {
                System.err.println("soak: the process that started this soak (pid " + parent.pid() + ") ended;"
                        + " exiting");
                Runtime.getRuntime().halt(SETUP_ERROR);
            });
        });
    }

    private int run() throws IOException, InterruptedException {
        Path report = settings.reportDir();
        Path logs = report.resolve("logs");
        TargetChild.deleteTree(logs);
        Files.createDirectories(logs);
        Files.deleteIfExists(report.resolve("result.txt"));
        TransportProvider provider;
        try {
            provider = Transports.select(settings.backend(), ServiceSoak.class.getClassLoader());
        } catch (TransportUnavailableException e) {
            System.out.println("UNAVAILABLE: " + e.getMessage());
            Files.writeString(report.resolve("result.txt"), "status=unavailable\nbackend=" + settings.backend()
                    + "\ncause=" + e.getMessage().replace('\n', ' ') + "\n");
            return UNAVAILABLE;
        }
        Path runDir = Files.createTempDirectory("bxsoak-");
        try (SoakLog log = new SoakLog(report.resolve("soak.log"))) {
            log.line("service soak of " + settings.backend() + " for " + settings.duration().toSeconds() + " s, pid "
                    + ProcessHandle.current().pid() + ": " + settings.profile().description());
            return soak(provider, runDir, log);
        } finally {
            TargetChild.deleteTree(runDir);
        }
    }

    private int soak(TransportProvider provider, Path runDir, SoakLog log) throws IOException, InterruptedException {
        TransportConfig config = TransportConfig.builder(RegionSpec.allocate(settings.initiatorBlocks(),
                        settings.blockLength()))
                .agentName("soak-initiator")
                .transferTimeout(settings.transferTimeout())
                .closeTimeout(Duration.ofSeconds(5))
                .options(settings.transportOptions())
                .build();
        DataTransport transport = provider.open(config);
        Set<Path> ownShm = new LinkedHashSet<>(UcxShmFiles.mappedBy(ProcessHandle.current().pid()));
        SoakConductor conductor = new SoakConductor(settings, transport, factory(runDir), log);
        ResourceSampler sampler = null;
        long closeMillis = -1;
        double seconds;
        try {
            try {
                conductor.start();
            } catch (IOException e) {
                log.line("a target did not start: " + e.getMessage());
                return SETUP_ERROR;
            }
            sampler = new ResourceSampler(settings.sampleInterval());
            ResourceSampler s = sampler;
            long t0 = System.nanoTime();
            conductor.run(settings.duration(), () -> log.line(progress(conductor, s)));
            seconds = (System.nanoTime() - t0) / 1e9;
            sampler.close();
            log.line("time is up: " + progress(conductor, sampler));
            conductor.finish();
            long c0 = System.nanoTime();
            transport.close();
            closeMillis = (System.nanoTime() - c0) / 1_000_000;
        } finally {
            if (sampler != null) {
                sampler.close();
            }
            transport.close();
            conductor.closeTargets();
            conductor.close();
        }
        List<Long> pids = new ArrayList<>();
        List<Long> alive = new ArrayList<>();
        Set<Path> childShm = new LinkedHashSet<>();
        long forced = 0;
        for (SoakTarget t : conductor.everyTarget()) {
            if (t.pid() >= 0) {
                pids.add(t.pid());
                if (ProcessHandle.of(t.pid()).map(ProcessHandle::isAlive).orElse(false)) {
                    alive.add(t.pid());
                }
            }
            childShm.addAll(t.shmFiles());
            forced += t.forcedAtClose() ? 1 : 0;
        }
        childShm.addAll(ownShm);
        UcxShmFiles.Sweep finalSweep = UcxShmFiles.sweep(childShm);
        List<Path> left = childShm.stream().filter(Files::exists).toList();
        List<ResourceSampler.Sample> samples = sampler.samples();
        double half = seconds / 120.0;
        SoakSettings.Bounds bounds = settings.bounds();
        List<Trend> trends = List.of(
                Trend.of("fds", "fds", samples, ResourceSampler.Sample::fds, half, Trend.Rule.SLOPE,
                        bounds.fds().at(half)),
                Trend.of("threads", "threads", samples, ResourceSampler.Sample::threads, half, Trend.Rule.SLOPE,
                        bounds.threads().at(half)),
                Trend.of("rss", "MiB", samples, x -> x.privateKiB() / 1024.0, half, Trend.Rule.SLOPE,
                        bounds.rssMiB().at(half)),
                Trend.of("shmMapped", "MiB", samples, x -> x.shmMappedKiB() / 1024.0, half, Trend.Rule.PEAK,
                        bounds.shmRiseMiB()),
                Trend.of("segments", "segments", samples, ResourceSampler.Sample::segments, half, Trend.Rule.SHOWN,
                        0),
                Trend.of("VmRSS", "MiB", samples, x -> x.rssKiB() / 1024.0, half, Trend.Rule.SHOWN, 0),
                Trend.of("RssShmem", "MiB", samples, x -> x.shmemKiB() / 1024.0, half, Trend.Rule.SHOWN, 0));
        SoakReport report = new SoakReport(settings, conductor, seconds, trends, finalSweep, left, pids, alive, forced,
                closeMillis);
        report.write(settings.reportDir());
        StringBuilder csv = new StringBuilder(ResourceSampler.Sample.CSV_HEADER).append('\n');
        samples.forEach(x -> csv.append(x.csv()).append('\n'));
        Files.writeString(settings.reportDir().resolve("resources.csv"), csv);
        System.out.println();
        System.out.println(report.markdown());
        System.out.println("report: " + settings.reportDir().resolve("report.md"));
        return report.passed() ? PASSED : FAILED;
    }

    private SoakConductor.TargetFactory factory(Path runDir) {
        SameHostProfile profile = settings.profile();
        if (!profile.crossProcess()) {
            return (name, family) -> TargetInJvm.open(settings.backend(), name, settings.targetBlocks(),
                    settings.blockLength(), settings.transferTimeout(), settings.transportOptions(), family);
        }
        TargetChild.Spec spec = new TargetChild.Spec(settings.backend(), childJava(), settings.transportOptions(),
                settings.targetBlocks(), settings.blockLength(), settings.transferTimeout(), runDir,
                settings.reportDir().resolve("logs"));
        return (name, family) -> TargetChild.start(spec, name, family);
    }

    /** The JVM of a target process: this JDK and class path, small heap, no perf-data file for a kill to leave. */
    private static List<String> childJava() {
        List<String> cmd = new ArrayList<>();
        cmd.add(SoakLauncher.javaBinary());
        cmd.addAll(List.of("--enable-native-access=ALL-UNNAMED", "-Xmx256m", "-XX:+UseSerialGC", "-XX:-UsePerfData"));
        cmd.addAll(SoakLauncher.blockxferProperties());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        return cmd;
    }

    private static String progress(SoakConductor c, ResourceSampler sampler) {
        ResourceSampler.Sample s = sampler.last();
        return String.format(Locale.ROOT, "%s; removes=%d adds=%d kills=%d; fds=%d threads=%d rss=%.0f MiB",
                c.tally().summary(), c.removes, c.adds, c.kills().size(), s.fds(), s.threads(), s.rssKiB() / 1024.0);
    }
}
