package io.blockxfer.multihost;

import io.blockxfer.tck.process.UcxShmFiles;
import io.blockxfer.transport.PeerDescriptor;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A soak target in a process of its own: {@link PeerMain} in the target role, on this host, with
 * its control channel on a Unix-domain socket ({@link ControlEndpoint}) in a directory of its own,
 * which also is the child's {@code java.io.tmpdir}, so whatever a killed child leaves in its
 * temporary directory goes when the directory does. Its output goes to
 * {@code <logs>/<name>.log}. A kill is SIGKILL of its pid; the UCX POSIX segments it mapped are
 * noted at start and just before the kill, for {@link UcxShmFiles#sweep}.
 *
 * <p><b>Thread safety:</b> thread-safe; requests are serialised by the control endpoint.
 */
final class TargetChild implements SoakTarget {

    private static final Duration START_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration REPLY_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(20);

    /**
     * How to start targets.
     *
     * @param backend the provider name
     * @param javaCommand the JVM and its options up to and including the class path
     * @param options transport options, passed as {@code --opt}
     * @param blocks blocks of the region
     * @param blockLength the block length
     * @param transferTimeout the transfer deadline
     * @param runDir where the control directories go (short, for Unix-domain socket paths)
     * @param logDir where the targets' output goes
     */
    record Spec(String backend, List<String> javaCommand, Map<String, String> options, int blocks, long blockLength,
            Duration transferTimeout, Path runDir, Path logDir) {
    }

    private final String name;
    private final long family;
    private final Process process;
    private final ControlEndpoint control;
    private final Path dir;
    private final PeerDescriptor descriptor;
    private final Set<Path> shm = Collections.synchronizedSet(new LinkedHashSet<>());
    private boolean closed;
    private boolean forced;

    private TargetChild(String name, long family, Process process, ControlEndpoint control, Path dir,
            PeerDescriptor descriptor) {
        this.name = name;
        this.family = family;
        this.process = process;
        this.control = control;
        this.dir = dir;
        this.descriptor = descriptor;
        shm.addAll(UcxShmFiles.mappedBy(process.pid()));
    }

    /**
     * Starts a target, waits for its descriptor and fills its region with the patterns of
     * {@code family}.
     *
     * @throws IOException if it does not start, or cannot open its transport
     */
    static TargetChild start(Spec spec, String name, long family) throws IOException {
        Path dir = spec.runDir().resolve(name.replace('#', '-'));
        Files.createDirectories(dir.resolve("tmp"));
        Path logFile = spec.logDir().resolve(name.replace('#', '-') + ".log");
        ControlEndpoint control = new ControlEndpoint(name, dir, PeerLog.ofProcess(logFile));
        List<String> cmd = new ArrayList<>();
        cmd.add(spec.javaCommand().getFirst());
        cmd.add("-Djava.io.tmpdir=" + dir.resolve("tmp"));
        cmd.addAll(spec.javaCommand().subList(1, spec.javaCommand().size()));
        cmd.addAll(List.of(PeerMain.class.getName(), "--role", "target", "--control",
                dir.resolve("control.sock").toString(), "--backend", spec.backend(), "--agent", name.replace('#', '-'),
                "--blocks", Integer.toString(spec.blocks()), "--block-length", Long.toString(spec.blockLength()),
                "--timeout-ms", Long.toString(spec.transferTimeout().toMillis())));
        spec.options().forEach((k, v) -> {
            cmd.add("--opt");
            cmd.add(k + "=" + v);
        });
        File log = logFile.toFile();
        Process process = new ProcessBuilder(cmd)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log))
                .redirectErrorStream(true)
                .start();
        try {
            control.accept(START_TIMEOUT, process::isAlive);
            String ready = control.await(0, l -> l.startsWith("E READY") || l.startsWith("E ERR"), START_TIMEOUT,
                    "READY");
            if (ready.startsWith("E ERR")) {
                throw new IOException(name + " could not open a " + spec.backend() + " transport: "
                        + ready.substring(6));
            }
            PeerDescriptor descriptor = PeerDescriptor.decode(Base64.getDecoder().decode(
                    EventFields.parse(ready).get("desc")));
            TargetChild child = new TargetChild(name, family, process, control, dir, descriptor);
            child.request("FILLALL " + family);
            return child;
        } catch (IOException | RuntimeException | AssertionError e) {
            process.destroyForcibly();
            waitQuietly(process);
            control.close();
            deleteTree(dir);
            throw e instanceof IOException io ? io
                    : new IOException(name + " did not start (see " + log + "): " + e, e);
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public PeerDescriptor descriptor() {
        return descriptor;
    }

    @Override
    public long family() {
        return family;
    }

    @Override
    public long pid() {
        return process.pid();
    }

    @Override
    public EventFields request(String command) {
        try {
            return control.request(command, REPLY_TIMEOUT);
        } catch (AssertionError e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    @Override
    public void kill() {
        shm.addAll(UcxShmFiles.mappedBy(process.pid()));
        process.destroyForcibly(); // SIGKILL to this pid
    }

    @Override
    public Set<Path> shmFiles() {
        synchronized (shm) {
            return Set.copyOf(shm);
        }
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (process.isAlive() && !control.ended()) {
                try {
                    control.request("CLOSE", EXIT_TIMEOUT);
                } catch (AssertionError ignored) {
                    // killed below
                }
            }
            if (!waitFor(EXIT_TIMEOUT) && process.isAlive()) {
                forced = true;
                shm.addAll(UcxShmFiles.mappedBy(process.pid()));
                process.destroyForcibly();
                waitFor(EXIT_TIMEOUT);
            }
        } finally {
            control.close();
            deleteTree(dir);
        }
    }

    @Override
    public synchronized boolean forcedAtClose() {
        return forced;
    }

    /** Whether the process has exited. */
    boolean ended() {
        return !process.isAlive();
    }

    private boolean waitFor(Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void waitQuietly(Process p) {
        try {
            p.waitFor(EXIT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> files = Files.walk(root)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a leftover temporary directory is reported by nobody and harms nothing
        }
    }

    @Override
    public String toString() {
        return name + " (pid " + process.pid() + ")";
    }
}
