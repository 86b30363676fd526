package io.blockxfer.tck.process;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * A child JVM started on this JVM's class path with this JVM's {@code java}, driven over a line
 * protocol: lines sent to its stdin, lines read from its stdout, stderr kept (its last lines) for
 * error messages. It can be frozen and thawed ({@code SIGSTOP}/{@code SIGCONT}) and killed
 * ({@code SIGKILL}); it is always reaped, and no child outlives this JVM: {@link #close()} ends it,
 * and a shutdown hook ends any child still running when this JVM exits normally. Child programs
 * should also exit when their stdin closes (see {@link #exitWhenParentDies()} for the case where
 * this JVM is killed). The process handling is {@link ChildProcess}'s; this class adds what makes
 * the child a JVM of this one's kind.
 *
 * <pre>{@code
 * try (ChildJvm child = ChildJvm.builder(MyTarget.class).args("ucx", "64").forwardSystemProperties(
 *         key -> key.startsWith("blockxfer.")).start()) {
 *     String ready = child.nextLine(Duration.ofSeconds(30));
 *     child.suspend();            // SIGSTOP
 *     child.resume();             // SIGCONT
 *     String answer = child.request("CHECK 3", Duration.ofSeconds(30));
 * }
 * }</pre>
 *
 * <p><b>Thread safety:</b> thread-safe. {@link #request} calls are serialised, so a reply always
 * belongs to its request; {@link #send} and {@link #nextLine} are for callers that drive the
 * protocol themselves from one thread.
 */
public final class ChildJvm implements AutoCloseable {

    private final ChildProcess process;

    private ChildJvm(ChildProcess process) {
        this.process = process;
    }

    /** A builder for a child running {@code mainClass}'s {@code main}. */
    public static Builder builder(Class<?> mainClass) {
        return new Builder(mainClass.getName());
    }

    /** A builder for a child running the {@code main} of the class named {@code mainClass}. */
    public static Builder builder(String mainClass) {
        return new Builder(Objects.requireNonNull(mainClass, "mainClass"));
    }

    /**
     * For child programs: halts this JVM when its parent process exits, so a child never outlives
     * a parent that was killed before it could close the child. Call it first in {@code main}.
     */
    public static void exitWhenParentDies() {
        ProcessHandle.current().parent().ifPresent(parent -> {
            // nothing waits for the dependent stage: it only halts this JVM
            var unused = parent.onExit().thenRun(() -> Runtime.getRuntime().halt(3));
        });
    }

    /** The child's operating-system process id. */
    public long pid() {
        return process.pid();
    }

    /** The name this child was started with, for messages. */
    public String name() {
        return process.name();
    }

    /** Sends one line to the child's stdin. */
    public void send(String line) {
        process.send(line);
    }

    /**
     * The next line the child writes to stdout.
     *
     * @throws ChildJvmException if none arrives within {@code timeout} or the child's stdout ends
     *     (the message gives its exit status and last stderr lines)
     */
    public String nextLine(Duration timeout) {
        return process.nextLine(timeout);
    }

    /**
     * The next line the child writes to stdout, or empty once its stdout has ended (for children
     * that print until they exit).
     *
     * @throws ChildJvmException if no line arrives and stdout does not end within {@code timeout}
     */
    public Optional<String> nextLineIfAny(Duration timeout) {
        return process.nextLineIfAny(timeout);
    }

    /** Sends {@code line} and returns the child's next stdout line; one request at a time. */
    public String request(String line, Duration timeout) {
        return process.request(line, timeout);
    }

    /** Freezes the child with {@code SIGSTOP}; it runs no code until {@link #resume()}. */
    public void suspend() {
        process.suspend();
    }

    /** Thaws a child frozen by {@link #suspend()} with {@code SIGCONT}. */
    public void resume() {
        process.resume();
    }

    /** Whether {@link #suspend()} was called without a {@link #resume()} since. */
    public boolean isSuspended() {
        return process.isSuspended();
    }

    /** Kills the child with {@code SIGKILL} and reaps it (waits up to 10 s for it to be gone). */
    public void kill() {
        process.kill();
    }

    /** Whether the child's process is still running (or frozen). */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** The child's exit status, once it has exited; 128 + n for a child ended by signal n. */
    public OptionalInt exitCode() {
        return process.exitCode();
    }

    /**
     * Waits for the child to exit by itself and returns its exit status.
     *
     * @throws ChildJvmException if it is still running after {@code timeout}
     */
    public int awaitExit(Duration timeout) {
        return process.awaitExit(timeout);
    }

    /** The last lines (at most 20) the child wrote to stderr, oldest first. */
    public List<String> stderrTail() {
        return process.stderrTail();
    }

    /** "child JVM 'name' (pid N, exit status S); its last stderr lines: ..." for messages. */
    public String describe() {
        return process.describe();
    }

    /**
     * Ends the child: thaws it if frozen, closes its stdin (a well-behaved child exits on that),
     * waits up to the exit grace, then kills it, and reaps it. Idempotent.
     */
    @Override
    public void close() {
        process.close();
    }

    @Override
    public String toString() {
        return describe();
    }

    /**
     * Builds and starts a {@link ChildJvm}. Defaults: this JVM's {@code java} binary and class path,
     * {@code --enable-native-access=ALL-UNNAMED}, the JVM's own warnings on stderr (unified logging writes
     * them to stdout by default), no system properties forwarded, this JVM's
     * environment, the child's stderr echoed to this JVM's stderr, 15 s of exit grace on close.
     *
     * <p><b>Thread safety:</b> not thread-safe; build on one thread.
     */
    public static final class Builder {

        private final String mainClass;
        private final List<String> args = new ArrayList<>();
        // the JVM's own warnings go to stderr, not to the stdout a child speaks its protocol on
        private final List<String> jvmArgs = new ArrayList<>(List.of("--enable-native-access=ALL-UNNAMED",
                "-Xlog:disable", "-Xlog:all=warning:stderr"));
        private final List<String> launcher = new ArrayList<>();
        private final Map<String, String> environment = new LinkedHashMap<>();
        private String classPath = System.getProperty("java.class.path");
        private Path javaBinary = currentJava();
        private Predicate<String> forwardedProperties = key -> false;
        private Consumer<String> stderrSink = System.err::println;
        private Duration exitGrace = Duration.ofSeconds(15);
        private String name;

        private Builder(String mainClass) {
            this.mainClass = mainClass;
            this.name = mainClass.substring(mainClass.lastIndexOf('.') + 1);
        }

        /** Appends program arguments. */
        public Builder args(String... values) {
            return args(List.of(values));
        }

        /** Appends program arguments. */
        public Builder args(List<String> values) {
            args.addAll(values);
            return this;
        }

        /** Appends JVM arguments (after {@code --enable-native-access=ALL-UNNAMED}). */
        public Builder jvmArgs(List<String> values) {
            jvmArgs.addAll(values);
            return this;
        }

        /**
         * Starts the {@code java} command line through {@code prefix}, which must end by executing
         * its arguments in the same process so that {@link ChildJvm#pid()} stays the JVM's: e.g.
         * {@code bash -c 'ulimit -n 1024 && exec "$0" "$@"'} for a child with fewer file descriptors.
         */
        public Builder launcher(List<String> prefix) {
            launcher.clear();
            launcher.addAll(prefix);
            return this;
        }

        /** Replaces the class path (default: this JVM's {@code java.class.path}). */
        public Builder classPath(String value) {
            this.classPath = Objects.requireNonNull(value, "classPath");
            return this;
        }

        /** Replaces the {@code java} binary (default: the one running this JVM). */
        public Builder javaBinary(Path value) {
            this.javaBinary = Objects.requireNonNull(value, "javaBinary");
            return this;
        }

        /** Passes this JVM's system properties whose keys {@code keys} accepts on as {@code -Dkey=value}. */
        public Builder forwardSystemProperties(Predicate<String> keys) {
            this.forwardedProperties = Objects.requireNonNull(keys, "keys");
            return this;
        }

        /** Sets an environment variable of the child (it inherits this JVM's environment otherwise). */
        public Builder environment(String key, String value) {
            environment.put(key, value);
            return this;
        }

        /** Where each stderr line of the child goes besides the kept tail (default: this JVM's stderr). */
        public Builder stderrTo(Consumer<String> sink) {
            this.stderrSink = Objects.requireNonNull(sink, "sink");
            return this;
        }

        /** How long {@link ChildJvm#close()} waits for the child to exit by itself before killing it. */
        public Builder exitGrace(Duration value) {
            this.exitGrace = Objects.requireNonNull(value, "exitGrace");
            return this;
        }

        /** The name used in thread names and messages (default: the main class's simple name). */
        public Builder name(String value) {
            this.name = Objects.requireNonNull(value, "name");
            return this;
        }

        /** The full command line the child will be started with. */
        public List<String> command() {
            List<String> cmd = new ArrayList<>(launcher);
            cmd.add(javaBinary.toString());
            cmd.addAll(jvmArgs);
            System.getProperties().stringPropertyNames().stream().sorted().filter(forwardedProperties)
                    .forEach(key -> cmd.add("-D" + key + "=" + System.getProperty(key)));
            cmd.add("-cp");
            cmd.add(classPath);
            cmd.add(mainClass);
            cmd.addAll(args);
            return cmd;
        }

        /**
         * Starts the child.
         *
         * @throws ChildJvmException if the process cannot be started
         */
        public ChildJvm start() {
            return new ChildJvm(ChildProcess.builder(command()).environment(environment).stderrTo(stderrSink)
                    .exitGrace(exitGrace).name(name).jvm().start());
        }

        private static Path currentJava() {
            return ProcessHandle.current().info().command().map(Path::of).filter(Files::isExecutable)
                    .orElse(Path.of(System.getProperty("java.home"), "bin", "java"));
        }
    }
}
