package io.blockxfer.cli.membership;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One worker JVM of a membership bench ({@link MembershipBench}, {@link MembershipScaleBench}),
 * started and ended by pid: its standard input takes one command a line, each line it prints but
 * {@code ready ...} (which marks it started) goes to a handler, and its standard error to
 * {@code worker-INDEX.log}. Also the benches' shared small helpers.
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
final class WorkerJvm {

    final int index;
    private final Process process;
    private final Writer in;
    private boolean ready;

    private WorkerJvm(int index, Process process) {
        this.index = index;
        this.process = process;
        this.in = process.outputWriter(StandardCharsets.UTF_8);
    }

    /**
     * Starts {@code main} with {@code args} in a JVM of {@code xmx} heap (Serial GC, C1 only), its
     * lines but {@code ready} handed to {@code lines} on a thread of its own.
     */
    static WorkerJvm start(int index, String xmx, String classpath, Class<?> main, List<String> args, Path logs,
            Consumer<String> lines) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(List.of(java, "-Xmx" + xmx, "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1", "--enable-native-access=ALL-UNNAMED", "-cp", classpath, main.getName()));
        command.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.redirectError(logs.resolve("worker-" + index + ".log").toFile());
        WorkerJvm w = new WorkerJvm(index, pb.start());
        Thread.ofPlatform().daemon().name("worker-" + index + "-output").start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(w.process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    if (line.startsWith("ready ")) {
                        synchronized (w) {
                            w.ready = true;
                            w.notifyAll();
                        }
                    } else {
                        lines.accept(line);
                    }
                }
            } catch (IOException ignored) {
                // the worker is gone
            }
        });
        return w;
    }

    long pid() {
        return process.pid();
    }

    /** Waits up to 180 s for its {@code ready} line. */
    synchronized void awaitReady() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (!ready) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || !process.isAlive()) {
                throw new IllegalStateException("worker " + index + " (pid " + process.pid() + ") did not start");
            }
            TimeUnit.NANOSECONDS.timedWait(this, Math.min(left, 500_000_000));
        }
    }

    void send(String line) throws IOException {
        synchronized (in) {
            in.write(line + "\n");
            in.flush();
        }
    }

    /** Waits up to {@code timeout} for it to end, then kills it. */
    void awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            kill();
        }
    }

    /** SIGKILLs its pid and reaps it. */
    void kill() {
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The 1-, 5- and 15-minute load averages, or "unknown". */
    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ", -1);
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException e) {
            return "unknown";
        }
    }

    /**
     * The threads of every process of the host ({@code /proc/loadavg}'s fourth field, after the
     * slash); -1 when unknown. Thread ids are process ids: past {@code kernel.pid_max} nothing on the
     * host can start a thread or a process.
     */
    static long hostThreads() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ", -1);
            return Long.parseLong(f[3].substring(f[3].indexOf('/') + 1));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** Sleeps until {@code offsetMillis} after {@code startNanos}. */
    static void sleepUntil(long startNanos, long offsetMillis) throws InterruptedException {
        long wait = startNanos + TimeUnit.MILLISECONDS.toNanos(offsetMillis) - System.nanoTime();
        if (wait > 0) {
            TimeUnit.NANOSECONDS.sleep(wait);
        }
    }
}
