package io.blockxfer.cli.internal;

import io.blockxfer.tck.process.ChildJvm;
import io.blockxfer.tck.process.ChildJvmException;
import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * A CPU hog for {@code bench --hog}: a child JVM ({@link ChildJvm}) with one busy thread per core of
 * this host, at normal priority, so the benchmark's threads compete for every core as they would
 * next to an inference engine. The child exits when its stdin closes, so it never outlives the
 * benchmark, even when the benchmark is killed. Its {@link #main} is the hog itself.
 *
 * <p><b>Thread safety:</b> {@link #close()} is idempotent and may be called from any thread.
 */
public final class CpuHog implements AutoCloseable {

    private static final String READY = "READY";

    private final ChildJvm process;
    private final int threads;

    private CpuHog(ChildJvm process, int threads) {
        this.process = process;
        this.threads = threads;
    }

    /** Starts a hog with one busy thread per available processor, and waits until they spin. */
    public static CpuHog start() {
        int threads = Runtime.getRuntime().availableProcessors();
        ChildJvm child = null;
        try {
            child = command(threads).start();
            String ready = child.nextLine(Duration.ofSeconds(60));
            if (!ready.equals(READY)) {
                throw new ChildJvmException("it said '" + ready + "' instead of " + READY);
            }
            return new CpuHog(child, threads);
        } catch (ChildJvmException e) {
            if (child != null) {
                child.close();
            }
            throw new CliException("could not start the CPU hog: " + e.getMessage(), CliException.FAILURE, e);
        }
    }

    /** The command line of a hog with {@code threads} busy threads (its JVM flags, arguments). */
    static ChildJvm.Builder command(int threads) {
        return LauncherJvmOptions.addTo(ChildJvm.builder(CpuHog.class)).name("cpu-hog")
                .jvmArgs(List.of("-Xmx32m", "-XX:+UseSerialGC")).args(Integer.toString(threads))
                .exitGrace(Duration.ofSeconds(5));
    }

    /** How many busy threads run. */
    public int threads() {
        return threads;
    }

    /** The hog's process id. */
    public long pid() {
        return process.pid();
    }

    /** Stops the hog: closes its stdin, and kills it if it has not exited within 5 s. */
    @Override
    public void close() {
        process.close();
    }

    /**
     * The hog: {@code args[0]} busy threads, until stdin closes; prints {@code READY} once they run.
     *
     * @param args the number of threads
     */
    public static void main(String[] args) throws IOException {
        int n = Integer.parseInt(args[0]);
        for (int i = 0; i < n; i++) {
            Thread.ofPlatform().daemon().name("hog-" + i).start(CpuHog::spin);
        }
        System.out.println(READY);
        System.out.flush();
        while (System.in.read() >= 0) {
            // wait for the end of stdin
        }
        System.exit(0);
    }

    private static void spin() {
        long x = 0;
        while (true) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            if (x == 42) {
                System.out.print("");
            }
        }
    }
}
