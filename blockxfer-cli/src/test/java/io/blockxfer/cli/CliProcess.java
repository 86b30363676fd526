package io.blockxfer.cli;

import io.blockxfer.cli.internal.LauncherScript;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code blockxfer} command in a child JVM as the launcher starts it (same JDK, same class path,
 * the launcher's JVM options read from {@code ./blockxfer}, the {@code blockxfer.*} system
 * properties passed on), optionally behind a command prefix such as {@code ip netns exec NS}; its
 * standard output and error are collected line by line, together.
 *
 * <p>The child starts with SIGINT at its default action ({@code env --default-signal=INT}), so that
 * {@link #signal signal("INT")} acts as Ctrl-C does in a terminal. A process inherits an ignored
 * SIGINT (every background job of a non-interactive shell has one, a CI runner's often too), and
 * the JVM then leaves it ignored: without the reset, a test run from such a shell would see the
 * server ignore the signal, as it should there.
 */
final class CliProcess implements AutoCloseable {

    /** {@code env --default-signal=INT}, where this {@code env} has the option (GNU coreutils 8.31+). */
    private static final List<String> DEFAULT_SIGINT = defaultSigint();

    private final Process process;
    private final List<String> lines = new ArrayList<>();

    private CliProcess(Process process) {
        this.process = process;
        Thread.ofPlatform().daemon().name("cli-process-output").start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    synchronized (lines) {
                        lines.add(line);
                        lines.notifyAll();
                    }
                }
            } catch (IOException ignored) {
                // the process is gone
            }
        });
    }

    /** Starts {@code blockxfer args...} after {@code prefix}, with extra environment {@code env}. */
    static CliProcess start(List<String> prefix, Map<String, String> env, String... args) throws IOException {
        return start(prefix, DEFAULT_SIGINT, env, args);
    }

    /**
     * Starts {@code blockxfer args...} with SIGINT ignored ({@code env --ignore-signal=INT}), as a
     * background job of a script starts it.
     *
     * @throws org.opentest4j.TestAbortedException where this {@code env} lacks the option
     */
    static CliProcess startWithSigintIgnored(String... args) throws IOException {
        org.junit.jupiter.api.Assumptions.assumeFalse(DEFAULT_SIGINT.isEmpty(),
                "this env cannot set a signal's disposition (GNU coreutils 8.31+ can)");
        return start(List.of(), List.of("env", "--ignore-signal=INT"), Map.of(), args);
    }

    private static CliProcess start(List<String> prefix, List<String> sigint, Map<String, String> env,
            String... args) throws IOException {
        List<String> cmd = new ArrayList<>(prefix);
        cmd.addAll(sigint);
        cmd.add(ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin",
                "java").toString()));
        cmd.addAll(LauncherScript.jvmOptions());
        cmd.add("-Xmx512m");
        System.getProperties().forEach((k, v) -> {
            if (String.valueOf(k).startsWith("blockxfer.")) {
                cmd.add("-D" + k + "=" + v);
            }
        });
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(BlockxferCli.class.getName());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().putAll(env);
        return new CliProcess(pb.start());
    }

    private static List<String> defaultSigint() {
        List<String> reset = List.of("env", "--default-signal=INT");
        try {
            List<String> probe = new ArrayList<>(reset);
            probe.add("true");
            Process p = new ProcessBuilder(probe).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0 ? reset : List.of();
        } catch (IOException e) {
            return List.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        }
    }

    long pid() {
        return process.pid();
    }

    /** Waits for a line matching {@code pattern}; fails with the output so far when none comes. */
    Matcher await(Pattern pattern, Duration timeout) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        int seen = 0;
        synchronized (lines) {
            while (true) {
                for (; seen < lines.size(); seen++) {
                    Matcher m = pattern.matcher(lines.get(seen));
                    if (m.find()) {
                        return m;
                    }
                }
                long left = end - System.nanoTime();
                if (left <= 0 || (!process.isAlive() && seen == lines.size())) {
                    throw new AssertionError("no line matching " + pattern + " from the process"
                            + (process.isAlive() ? "" : " (exited " + process.exitValue() + ")") + ":\n" + output());
                }
                lines.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(Math.min(left, 200_000_000L))));
            }
        }
    }

    /** Everything it printed so far. */
    String output() {
        synchronized (lines) {
            return String.join("\n", lines);
        }
    }

    /** Sends {@code signal} (e.g. {@code INT}, {@code TERM}) with kill(1). */
    void signal(String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new AssertionError("kill -" + signal + " " + process.pid() + " failed");
        }
    }

    /** Waits for the exit, bounded; its status. */
    int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("the process did not exit within " + timeout + ":\n" + output()
                    + "\nits threads:\n" + threadDump());
        }
        return process.exitValue();
    }

    /** The process's Java threads ({@code jcmd PID Thread.print}), to see where a hang is. */
    private String threadDump() {
        try {
            Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                    Long.toString(process.pid()), "Thread.print").redirectErrorStream(true).start();
            String dump = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return jcmd.waitFor(20, TimeUnit.SECONDS) ? dump : dump + "\n(jcmd did not finish)";
        } catch (IOException e) {
            return "(no thread dump: " + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "(no thread dump: interrupted)";
        }
    }

    /**
     * The shared-memory files and SysV segments the process has mapped now: lines of its
     * {@code /proc/PID/maps} naming {@code /dev/shm/} files or {@code SYSV} segments.
     */
    List<String> sharedMemoryMapped() throws IOException {
        Path maps = Path.of("/proc", Long.toString(process.pid()), "maps");
        if (!Files.isReadable(maps)) {
            return List.of();
        }
        List<String> found = new ArrayList<>();
        for (String line : Files.readAllLines(maps)) {
            int at = line.indexOf("/dev/shm/");
            if (at >= 0) {
                found.add(line.substring(at).replace(" (deleted)", ""));
            } else if (line.contains("/SYSV")) {
                found.add(line.substring(line.indexOf("/SYSV")));
            }
        }
        return found.stream().distinct().toList();
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
