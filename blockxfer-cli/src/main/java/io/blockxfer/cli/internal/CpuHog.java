package io.blockxfer.cli.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A CPU hog for {@code bench --hog}: a child JVM with one busy thread per core of this host, at
 * normal priority, so the benchmark's threads compete for every core as they would next to an
 * inference engine. The child exits when its stdin closes, so it never outlives the benchmark,
 * even when the benchmark is killed. Its {@link #main} is the hog itself.
 *
 * <p><b>Thread safety:</b> {@link #close()} is idempotent and may be called from any thread.
 */
public final class CpuHog implements AutoCloseable {

    private final Process process;
    private final int threads;

    private CpuHog(Process process, int threads) {
        this.process = process;
        this.threads = threads;
    }

    /** Starts a hog with one busy thread per available processor, and waits until they spin. */
    public static CpuHog start() {
        int threads = Runtime.getRuntime().availableProcessors();
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.add("-Xmx32m");
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(CpuHog.class.getName());
        cmd.add(Integer.toString(threads));
        try {
            Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            InputStream in = p.getInputStream();
            if (in.read() != 'R') {
                p.destroyForcibly();
                throw new CliException("the CPU hog did not start (exit status " + p.waitFor() + ")");
            }
            return new CpuHog(p, threads);
        } catch (IOException e) {
            throw new CliException("could not start the CPU hog: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliException("interrupted while starting the CPU hog");
        }
    }

    /** How many busy threads run. */
    public int threads() {
        return threads;
    }

    /** The hog's process id. */
    public long pid() {
        return process.pid();
    }

    /** Stops the hog and waits (bounded) for it to exit. */
    @Override
    public void close() {
        try {
            process.getOutputStream().close();
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (IOException e) {
            process.destroyForcibly();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }

    /**
     * The hog: {@code args[0]} busy threads, until stdin closes; prints {@code R} once they run.
     *
     * @param args the number of threads
     */
    public static void main(String[] args) throws IOException {
        int n = Integer.parseInt(args[0]);
        for (int i = 0; i < n; i++) {
            Thread.ofPlatform().daemon().name("hog-" + i).start(CpuHog::spin);
        }
        System.out.print('R');
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
