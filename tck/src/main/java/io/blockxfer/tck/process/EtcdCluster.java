package io.blockxfer.tck.process;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * A private etcd cluster for tests: 1 or 3 members of the system's {@code etcd} binary (Debian's
 * {@code etcd-server}, installed by {@code scripts/etcd install}), started as child processes by
 * pid, on free 127.0.0.1 ports, with their data in a temporary folder that {@link #close()}
 * removes. The etcd directory's tests use it, and so does any test that needs a real etcd (the
 * command-line tool's {@code bench --directory}). A member can be killed ({@code SIGKILL}), frozen
 * ({@code SIGSTOP}) and started again on its data. No member outlives the test JVM
 * ({@link ChildProcess}'s shutdown hook kills any left), and {@link #close()} kills every member it
 * started.
 *
 * <p>Without an {@code etcd} binary the tests skip with the cause, or fail instead when
 * {@code -Dblockxfer.etcd.require=true} (CI sets it).
 *
 * <p>In the kit's main code for the tests and benchmarks of other modules that need a real etcd
 * ({@code transport-directory-etcd}, {@code membership-tests}, the CLI's).
 *
 * <p><b>Thread safety:</b> thread-safe (methods are synchronized).
 */
public final class EtcdCluster implements AutoCloseable {

    /** The system property that turns a missing etcd from a skip into a failure. */
    public static final String REQUIRE_PROPERTY = "blockxfer.etcd.require";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private final Path binary;
    private final String version;
    private final Path dir;
    private final List<Member> members = new ArrayList<>();
    private boolean closed;

    private EtcdCluster(Path binary, Path dir) {
        this.binary = binary;
        this.version = version(binary);
        this.dir = dir;
    }

    /** The binary's version ("3.4.23"), from {@code etcd --version}; "?" when it says none. */
    private static String version(Path binary) {
        try {
            Process p = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor();
            return out.lines().filter(l -> l.startsWith("etcd Version: ")).map(l -> l.substring(14).strip())
                    .findFirst().orElse("?");
        } catch (IOException e) {
            return "?";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "?";
        }
    }

    /** The etcd version the members run, e.g. {@code 3.4.23}. */
    public String version() {
        return version;
    }

    /**
     * The etcd binary: {@code -Dblockxfer.etcd.binary}, {@code $BLOCKXFER_ETCD}, or {@code etcd} on
     * the PATH.
     */
    public static Optional<Path> findBinary() {
        String explicit = System.getProperty("blockxfer.etcd.binary", System.getenv("BLOCKXFER_ETCD"));
        if (explicit != null && !explicit.isBlank()) {
            Path p = Path.of(explicit);
            return Files.isExecutable(p) ? Optional.of(p) : Optional.empty();
        }
        String path = Optional.ofNullable(System.getenv("PATH")).orElse("/usr/local/bin:/usr/bin:/bin");
        return Stream.of(path.split(File.pathSeparator)).filter(d -> !d.isEmpty())
                .map(d -> Path.of(d, "etcd")).filter(Files::isExecutable).findFirst();
    }

    /** Skips the calling test when there is no etcd binary, or fails it when etcd is required. */
    public static Path requireBinary() {
        Optional<Path> found = findBinary();
        if (found.isEmpty()) {
            String cause = "no etcd binary (looked at -Dblockxfer.etcd.binary, $BLOCKXFER_ETCD and etcd on the PATH);"
                    + " install Debian's etcd-server with scripts/etcd install";
            if (Boolean.getBoolean(REQUIRE_PROPERTY)) {
                Assertions.fail(cause + " (required: -D" + REQUIRE_PROPERTY + "=true)");
            }
            Assumptions.abort(cause);
        }
        return found.orElseThrow();
    }

    /** Starts a cluster of {@code size} (1 or 3) members and waits until each is healthy. */
    public static EtcdCluster start(int size) {
        if (size != 1 && size != 3) {
            throw new IllegalArgumentException("size must be 1 or 3: " + size);
        }
        Path binary = requireBinary();
        Path dir;
        try {
            dir = Files.createTempDirectory("blockxfer-etcd-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        EtcdCluster cluster = new EtcdCluster(binary, dir);
        try {
            List<Integer> ports = freePorts(2 * size);
            String token = "blockxfer-test-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
            for (int i = 0; i < size; i++) {
                cluster.members.add(new Member("m" + (i + 1), ports.get(2 * i), ports.get(2 * i + 1),
                        dir.resolve("m" + (i + 1) + ".etcd")));
            }
            String initial = cluster.members.stream().map(m -> m.name + "=http://127.0.0.1:" + m.peerPort)
                    .collect(Collectors.joining(","));
            for (Member m : cluster.members) {
                m.args = List.of("--name=" + m.name, "--data-dir=" + m.dataDir,
                        "--listen-client-urls=http://127.0.0.1:" + m.clientPort,
                        "--advertise-client-urls=http://127.0.0.1:" + m.clientPort,
                        "--listen-peer-urls=http://127.0.0.1:" + m.peerPort,
                        "--initial-advertise-peer-urls=http://127.0.0.1:" + m.peerPort,
                        "--initial-cluster=" + initial, "--initial-cluster-token=" + token,
                        "--initial-cluster-state=new", "--logger=zap", "--log-outputs=stderr");
                cluster.launch(m);
            }
            for (int i = 0; i < size; i++) {
                cluster.awaitHealthy(i, START_TIMEOUT);
            }
            return cluster;
        } catch (RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
    }

    /** The client endpoints of every member: {@code etcd://127.0.0.1:P1,...}. */
    public synchronized String endpoints() {
        return members.stream().map(m -> "127.0.0.1:" + m.clientPort).collect(Collectors.joining(",", "etcd://", ""));
    }

    /** The client port of member {@code i}. */
    public synchronized int clientPort(int i) {
        return members.get(i).clientPort;
    }

    /** The number of members. */
    public synchronized int size() {
        return members.size();
    }

    /** The pid of member {@code i}; -1 when it is not running. */
    public synchronized long pid(int i) {
        ChildProcess p = members.get(i).process;
        return p != null && p.isAlive() ? p.pid() : -1;
    }

    /** {@code SIGKILL}s member {@code i} and reaps it; its data stays for {@link #restart}. */
    public synchronized void kill(int i) {
        Member m = members.get(i);
        if (m.process != null) {
            m.process.kill();
            m.process = null;
        }
    }

    /** Starts member {@code i} again on its data and waits until it is healthy. */
    public synchronized void restart(int i) {
        Member m = members.get(i);
        if (m.process != null && m.process.isAlive()) {
            throw new IllegalStateException("member " + m.name + " still runs (pid " + m.process.pid() + ")");
        }
        launch(m);
    }

    /** {@code SIGSTOP}s member {@code i}: its connections stay open and go silent. */
    public synchronized void freeze(int i) {
        running(i).suspend();
    }

    /** {@code SIGCONT}s a frozen member {@code i}. */
    public synchronized void thaw(int i) {
        running(i).resume();
    }

    /**
     * Waits until member {@code i} answers {@code {"health":"true"}} on {@code /health} (it has a
     * leader and serves), or fails naming it.
     */
    public void awaitHealthy(int i, Duration timeout) {
        Member m;
        synchronized (this) {
            m = members.get(i);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "no answer";
        while (System.nanoTime() < deadline) {
            ChildProcess p;
            synchronized (this) {
                p = m.process;
            }
            if (p == null || !p.isAlive()) {
                throw new AssertionError("etcd member " + m.name + " is not running: "
                        + (p == null ? "never started" : p.describe()));
            }
            last = health(m.clientPort);
            if (last.contains("\"health\":\"true\"")) {
                return;
            }
            sleep(100);
        }
        throw new AssertionError("etcd member " + m.name + " (client port " + m.clientPort + ") not healthy within "
                + timeout.toMillis() + " ms; last answer: " + last + "; " + m.process);
    }

    /** Waits until every running member is healthy. */
    public void awaitAllHealthy(Duration timeout) {
        for (int i = 0; i < size(); i++) {
            awaitHealthy(i, timeout);
        }
    }

    /**
     * The index of the member that leads now, as the running members say through etcd's JSON
     * gateway ({@code POST /v3/maintenance/status}: the answering member's id and its leader's),
     * or fails when none says it leads.
     */
    public int leader() {
        int n = size();
        StringBuilder answers = new StringBuilder();
        for (int i = 0; i < n; i++) {
            if (pid(i) < 0) {
                continue;
            }
            String answer = http(clientPort(i), "POST /v3/maintenance/status HTTP/1.0\r\nHost: 127.0.0.1\r\n"
                    + "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}");
            answers.append(" m").append(i + 1).append(": ").append(answer.lines().reduce((a, b) -> b).orElse(""));
            String self = jsonString(answer, "member_id");
            String leader = jsonString(answer, "leader");
            if (self != null && self.equals(leader)) {
                return i;
            }
        }
        throw new AssertionError("no member of " + this + " says it leads;" + answers);
    }

    /** The string value of {@code "key":"value"} in a JSON text, or null. */
    private static @Nullable String jsonString(String json, String key) {
        Matcher m = Pattern.compile("\"" + key + "\":\"([^\"]*)\"").matcher(json);
        return m.find() ? m.group(1) : null;
    }

    /** The last stderr lines of member {@code i}, for messages. */
    public synchronized String describe(int i) {
        ChildProcess p = members.get(i).process;
        return p == null ? "member " + members.get(i).name + " (not running)" : p.describe();
    }

    /** Kills every member and removes the data folder. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Member m : members) {
            if (m.process != null) {
                m.process.kill();
                m.process.close();
                m.process = null;
            }
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            System.err.println("could not remove " + dir + ": " + e);
        }
    }

    @Override
    public synchronized String toString() {
        return "etcd cluster of " + members.size() + " (" + endpoints() + ")";
    }

    private ChildProcess running(int i) {
        ChildProcess p = members.get(i).process;
        if (p == null || !p.isAlive()) {
            throw new IllegalStateException("member " + members.get(i).name + " is not running");
        }
        return p;
    }

    private void launch(Member m) {
        List<String> command = new ArrayList<>();
        command.add(binary.toString());
        command.addAll(m.args);
        m.process = ChildProcess.builder(command).name("etcd-" + m.name).stderrTo(line -> { })
                .exitGrace(Duration.ofSeconds(2)).start();
    }

    /** GET /health over a plain socket (no HTTP client needed): the body, or the error. */
    private static String health(int port) {
        return http(port, "GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n");
    }

    /** One HTTP/1.0 exchange with a member's client port: the whole answer, or the error. */
    private static String http(int port, String request) {
        try (Socket s = new Socket()) {
            s.connect(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
            s.setSoTimeout(2000);
            OutputStream out = s.getOutputStream();
            out.write(request.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return e.toString();
        }
    }

    /** {@code n} distinct ports that were free on 127.0.0.1 a moment ago. */
    public static List<Integer> freePorts(int n) {
        Set<Integer> ports = new HashSet<>();
        List<Integer> ordered = new ArrayList<>();
        while (ordered.size() < n) {
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                if (ports.add(s.getLocalPort())) {
                    ordered.add(s.getLocalPort());
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return ordered;
    }

    /** Sleeps {@code millis}; an interrupt fails the calling test (and keeps the thread's flag). */
    public static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** One member: its ports, data and process. */
    private static final class Member {
        final String name;
        final int clientPort;
        final int peerPort;
        final Path dataDir;
        List<String> args = List.of();
        @Nullable ChildProcess process;

        Member(String name, int clientPort, int peerPort, Path dataDir) {
            this.name = name;
            this.clientPort = clientPort;
            this.peerPort = peerPort;
            this.dataDir = dataDir;
        }
    }
}
