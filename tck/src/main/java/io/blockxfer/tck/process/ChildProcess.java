package io.blockxfer.tck.process;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * A child process driven over a line protocol: lines sent to its stdin, lines read from its
 * stdout, stderr kept (its last lines) for error messages. It can be frozen and thawed
 * ({@code SIGSTOP}/{@code SIGCONT}) and killed ({@code SIGKILL}); it is always reaped, and no child
 * outlives this JVM: {@link #close()} ends it, and a shutdown hook ends any child still running
 * when this JVM exits normally. Child programs should also exit when their stdin closes.
 * {@link ChildJvm} starts a JVM child on this JVM's class path with one of these.
 *
 * <pre>{@code
 * try (ChildProcess child = ChildProcess.builder(List.of("python3", "peer.py")).environment("X", "1")
 *         .start()) {
 *     String ready = child.nextLine(Duration.ofSeconds(30));
 *     String answer = child.request("CHECK 3", Duration.ofSeconds(30));
 * }
 * }</pre>
 *
 * <p><b>Thread safety:</b> thread-safe. {@link #request} calls are serialised, so a reply always
 * belongs to its request; {@link #send} and {@link #nextLine} are for callers that drive the
 * protocol themselves from one thread.
 */
public final class ChildProcess implements AutoCloseable {

    private static final int STDERR_LINES_KEPT = 20;
    private static final String EOF = "\u0000EOF";
    private static final Set<ChildProcess> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            for (ChildProcess child : LIVE) {
                child.destroyNow();
            }
        }, "blockxfer-child-process-reaper"));
    }

    private final String name;
    private final boolean jvm;
    private final Process process;
    private final PrintStream stdin;
    private final BlockingQueue<String> stdout = new LinkedBlockingQueue<>();
    private final ArrayDeque<String> stderrTail = new ArrayDeque<>();
    /** Open until the stderr pump has read the child's last stderr line. */
    private final CountDownLatch stderrEnded = new CountDownLatch(1);
    private final Consumer<String> stderrSink;
    private final Duration exitGrace;
    private volatile boolean suspended;
    private volatile boolean closed;

    private ChildProcess(String name, boolean jvm, Process process, Consumer<String> stderrSink, Duration exitGrace) {
        this.name = name;
        this.jvm = jvm;
        this.process = process;
        this.stderrSink = stderrSink;
        this.exitGrace = exitGrace;
        this.stdin = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
        LIVE.add(this);
        pump(process.getInputStream(), "out", stdout::add);
        pump(process.getErrorStream(), "err", this::onStderr);
    }

    /** A builder for a child running {@code command} (the program, then its arguments). */
    public static Builder builder(List<String> command) {
        return new Builder(command);
    }

    /** The child's operating-system process id. */
    public long pid() {
        return process.pid();
    }

    /** The name this child was started with, for messages. */
    public String name() {
        return name;
    }

    /** Sends one line to the child's stdin. */
    public void send(String line) {
        Objects.requireNonNull(line, "line");
        if (line.indexOf('\n') >= 0 || line.indexOf('\r') >= 0) {
            throw new IllegalArgumentException("a protocol line must not contain a line break: " + line);
        }
        stdin.println(line);
        if (stdin.checkError() && !process.isAlive()) {
            throw failure("cannot send '" + line + "' to " + describe(), null);
        }
    }

    /**
     * The next line the child writes to stdout.
     *
     * @throws ChildProcessException if none arrives within {@code timeout} or the child's stdout
     *     ends (the message gives its exit status and last stderr lines)
     */
    public String nextLine(Duration timeout) {
        return nextLineIfAny(timeout).orElseThrow(() -> {
            if (awaitQuietly(Duration.ofSeconds(2))) {
                // stdout's end and stderr's are read by two threads: the message needs its last lines
                awaitStderrEnd(Duration.ofSeconds(2));
            }
            return failure("stdout of " + describe() + " ended", null);
        });
    }

    /**
     * The next line the child writes to stdout, or empty once its stdout has ended (for children
     * that print until they exit).
     *
     * @throws ChildProcessException if no line arrives and stdout does not end within {@code timeout}
     */
    @SuppressWarnings("ReferenceEquality") // EOF is a sentinel instance: identity, not content, ends the stream
    public Optional<String> nextLineIfAny(Duration timeout) {
        String line;
        try {
            line = stdout.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw failure("interrupted waiting for " + describe(), e);
        }
        if (line == null) {
            throw failure("no line from " + describe() + " within " + timeout.toMillis() + " ms"
                    + (suspended ? " (it is suspended)" : ""), null);
        }
        if (line == EOF) {
            stdout.add(EOF); // every later read ends the same way
            return Optional.empty();
        }
        return Optional.of(line);
    }

    /** Sends {@code line} and returns the child's next stdout line; one request at a time. */
    public synchronized String request(String line, Duration timeout) {
        send(line);
        return nextLine(timeout);
    }

    /** Freezes the child with {@code SIGSTOP}; it runs no code until {@link #resume()}. */
    public void suspend() {
        signal("STOP");
        suspended = true;
    }

    /** Thaws a child frozen by {@link #suspend()} with {@code SIGCONT}. */
    public void resume() {
        signal("CONT");
        suspended = false;
    }

    /** Whether {@link #suspend()} was called without a {@link #resume()} since. */
    public boolean isSuspended() {
        return suspended;
    }

    /** Kills the child with {@code SIGKILL} and reaps it (waits up to 10 s for it to be gone). */
    public void kill() {
        process.destroyForcibly();
        suspended = false;
        awaitQuietly(Duration.ofSeconds(10));
        LIVE.remove(this);
    }

    /** Whether the child's process is still running (or frozen). */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** The child's exit status, once it has exited; 128 + n for a child ended by signal n. */
    public OptionalInt exitCode() {
        return process.isAlive() ? OptionalInt.empty() : OptionalInt.of(process.exitValue());
    }

    /**
     * Waits for the child to exit by itself and returns its exit status.
     *
     * @throws ChildProcessException if it is still running after {@code timeout}
     */
    public int awaitExit(Duration timeout) {
        if (!awaitQuietly(timeout)) {
            throw failure(describe() + " did not exit within " + timeout.toMillis() + " ms", null);
        }
        LIVE.remove(this);
        return process.exitValue();
    }

    /** The last lines (at most 20) the child wrote to stderr, oldest first. */
    public List<String> stderrTail() {
        synchronized (stderrTail) {
            return List.copyOf(stderrTail);
        }
    }

    /** "child process 'name' (pid N, exit status S); its last stderr lines: ..." for messages. */
    public String describe() {
        StringBuilder s = new StringBuilder(jvm ? "child JVM '" : "child process '").append(name).append("' (pid ")
                .append(pid());
        if (!process.isAlive()) {
            int code = process.exitValue();
            s.append(", exit status ").append(code);
            if (code > 128) {
                s.append(" = signal ").append(code - 128);
            }
        }
        s.append(')');
        List<String> tail = stderrTail();
        if (!tail.isEmpty()) {
            s.append("; its last stderr lines: ").append(String.join(" | ", tail.subList(Math.max(0, tail.size() - 6),
                    tail.size())));
        }
        return s.toString();
    }

    /**
     * Ends the child: thaws it if frozen, closes its stdin (a well-behaved child exits on that),
     * waits up to the exit grace, then kills it, and reaps it. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (process.isAlive()) {
                if (suspended) {
                    resume();
                }
                stdin.close();
                if (!awaitQuietly(exitGrace)) {
                    kill();
                }
            }
        } catch (RuntimeException e) {
            destroyNow();
            throw e;
        } finally {
            LIVE.remove(this);
        }
    }

    @Override
    public String toString() {
        return describe();
    }

    private ChildProcessException failure(String message, @Nullable Throwable cause) {
        if (jvm) {
            return cause == null ? new ChildJvmException(message) : new ChildJvmException(message, cause);
        }
        return cause == null ? new ChildProcessException(message) : new ChildProcessException(message, cause);
    }

    private void destroyNow() {
        if (process.isAlive()) {
            try {
                if (suspended) {
                    signal("CONT");
                }
            } catch (RuntimeException ignored) {
                // killing below is what matters
            }
            process.destroyForcibly();
        }
    }

    private boolean awaitQuietly(Duration timeout) {
        try {
            return process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !process.isAlive();
        }
    }

    /** Waits, bounded, until the stderr pump has delivered the child's last line and its end. */
    private void awaitStderrEnd(Duration timeout) {
        try {
            stderrEnded.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void signal(String signal) {
        if (!process.isAlive()) {
            throw failure("cannot send SIG" + signal + " to " + describe() + ": it has exited", null);
        }
        try {
            Signals.send(pid(), signal);
        } catch (ChildProcessException e) {
            throw failure(String.valueOf(e.getMessage()), e);
        }
    }

    @SuppressWarnings("ReferenceEquality") // EOF is a sentinel instance: identity, not content, ends the stream
    private void onStderr(String line) {
        if (line == EOF) {
            stderrEnded.countDown();
            return;
        }
        stderrSink.accept(line);
        if (line.isBlank() || line.startsWith("\tat ")) {
            return;
        }
        synchronized (stderrTail) {
            stderrTail.addLast(line.length() > 500 ? line.substring(0, 500) + "..." : line);
            if (stderrTail.size() > STDERR_LINES_KEPT) {
                stderrTail.removeFirst();
            }
        }
    }

    private void pump(InputStream in, String what, Consumer<String> sink) {
        Thread.ofPlatform().daemon().name((jvm ? "child-jvm-" : "child-process-") + pid() + "-" + what).start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    sink.accept(line);
                }
            } catch (IOException ignored) {
                // the process is gone: readers get EOF below
            }
            sink.accept(EOF);
        });
    }

    /**
     * Builds and starts a {@link ChildProcess}. Defaults: this JVM's environment, the child's
     * stderr echoed to this JVM's stderr, 15 s of exit grace on close, the program's file name as
     * the name.
     *
     * <p><b>Thread safety:</b> not thread-safe; build on one thread.
     */
    public static final class Builder {

        private final List<String> command;
        private final Map<String, String> environment = new LinkedHashMap<>();
        private Consumer<String> stderrSink = System.err::println;
        private Duration exitGrace = Duration.ofSeconds(15);
        private String name;
        private boolean jvm;

        private Builder(List<String> command) {
            this.command = List.copyOf(command);
            if (this.command.isEmpty()) {
                throw new IllegalArgumentException("a child process needs a command");
            }
            String program = this.command.getFirst();
            this.name = program.substring(program.lastIndexOf('/') + 1);
        }

        /** Sets an environment variable of the child (it inherits this JVM's environment otherwise). */
        public Builder environment(String key, String value) {
            environment.put(key, value);
            return this;
        }

        /** Sets the environment variables of {@code values} in the child. */
        public Builder environment(Map<String, String> values) {
            environment.putAll(values);
            return this;
        }

        /** Where each stderr line of the child goes besides the kept tail (default: this JVM's stderr). */
        public Builder stderrTo(Consumer<String> sink) {
            this.stderrSink = Objects.requireNonNull(sink, "sink");
            return this;
        }

        /** How long {@link ChildProcess#close()} waits for the child to exit by itself before killing it. */
        public Builder exitGrace(Duration value) {
            this.exitGrace = Objects.requireNonNull(value, "exitGrace");
            return this;
        }

        /** The name used in thread names and messages (default: the program's file name). */
        public Builder name(String value) {
            this.name = Objects.requireNonNull(value, "name");
            return this;
        }

        /** Marks the child a JVM: messages say so, and failures are {@link ChildJvmException}s. */
        Builder jvm() {
            this.jvm = true;
            return this;
        }

        /** The command line the child will be started with. */
        public List<String> command() {
            return command;
        }

        /**
         * Starts the child.
         *
         * @throws ChildProcessException if the process cannot be started
         */
        public ChildProcess start() {
            ProcessBuilder pb = new ProcessBuilder(command);
            pb.environment().putAll(environment);
            try {
                return new ChildProcess(name, jvm, pb.start(), stderrSink, exitGrace);
            } catch (IOException e) {
                String message = "could not start " + (jvm ? "child JVM '" : "child process '") + name + "': "
                        + e.getMessage() + "; command: " + command;
                throw jvm ? new ChildJvmException(message, e) : new ChildProcessException(message, e);
            }
        }
    }
}
