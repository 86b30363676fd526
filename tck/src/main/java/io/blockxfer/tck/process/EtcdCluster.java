package io.blockxfer.tck.process;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
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
 * <p>{@link #builder(int)} starts it with client and peer TLS ({@code https://} URLs,
 * {@code --client-cert-auth}, certificates of a throwaway CA made by {@link TestCertificates}:
 * {@link #tls()}) and with authentication (a {@code root} user, {@code auth enable}, deployment
 * users limited to a prefix by {@link #addUser}), and with short token TTLs (simple or JWT).
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
    private @Nullable EtcdTlsFiles tls;
    private @Nullable String rootPassword;
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
        return builder(size).start();
    }

    /** A cluster of {@code size} (1 or 3) members to configure (TLS, authentication) and start. */
    public static Builder builder(int size) {
        if (size != 1 && size != 3) {
            throw new IllegalArgumentException("size must be 1 or 3: " + size);
        }
        return new Builder(size);
    }

    /**
     * How a cluster starts: plain text unless {@link #tls()}, without authentication unless
     * {@link #auth()}.
     *
     * <p><b>Thread safety:</b> not thread-safe.
     */
    public static final class Builder {
        private final int size;
        private boolean tls;
        private boolean auth;
        private @Nullable Duration simpleTokenTtl;
        private @Nullable Duration jwtTokenTtl;

        private Builder(int size) {
            this.size = size;
        }

        /**
         * Client and peer TLS with certificates of a throwaway CA ({@link EtcdCluster#tls()}):
         * {@code https://} client URLs, {@code --client-cert-auth} (clients present a certificate
         * of that CA) and the same for the members among themselves. Needs BouncyCastle.
         */
        public Builder tls() {
            this.tls = true;
            return this;
        }

        /**
         * etcd's authentication on: a {@code root} user (password {@link EtcdCluster#rootPassword()})
         * with the root role, then {@code auth enable}; {@link EtcdCluster#addUser} adds deployment users.
         */
        public Builder auth() {
            this.auth = true;
            return this;
        }

        /** Simple tokens expire after {@code ttl} unused ({@code --auth-token-ttl}; whole seconds). */
        public Builder simpleTokenTtl(Duration ttl) {
            this.simpleTokenTtl = ttl;
            this.jwtTokenTtl = null;
            return this;
        }

        /** JWT tokens ({@code --auth-token jwt,...,sign-method=RS256,ttl=...}) that expire after {@code ttl}. */
        public Builder jwtTokenTtl(Duration ttl) {
            this.jwtTokenTtl = ttl;
            this.simpleTokenTtl = null;
            return this;
        }

        /** Starts the members and waits until each is healthy (and, with {@link #auth()}, auth is on). */
        public EtcdCluster start() {
            Path binary = requireBinary();
            Path dir;
            try {
                dir = Files.createTempDirectory("blockxfer-etcd-");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            EtcdCluster cluster = new EtcdCluster(binary, dir);
            try {
                cluster.launchAll(this);
                return cluster;
            } catch (RuntimeException | Error e) {
                cluster.close();
                throw e;
            }
        }
    }

    private void launchAll(Builder b) {
        List<Integer> ports = freePorts(2 * b.size);
        String token = "blockxfer-test-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        for (int i = 0; i < b.size; i++) {
            members.add(new Member("m" + (i + 1), ports.get(2 * i), ports.get(2 * i + 1),
                    dir.resolve("m" + (i + 1) + ".etcd")));
        }
        if (b.tls) {
            tls = new EtcdTlsFiles(dir.resolve("tls"), members.size());
        }
        String scheme = tls != null ? "https" : "http";
        String initial = members.stream().map(m -> m.name + "=" + scheme + "://127.0.0.1:" + m.peerPort)
                .collect(Collectors.joining(","));
        for (int i = 0; i < members.size(); i++) {
            Member m = members.get(i);
            List<String> args = new ArrayList<>(List.of("--name=" + m.name, "--data-dir=" + m.dataDir,
                    "--listen-client-urls=" + scheme + "://127.0.0.1:" + m.clientPort,
                    "--advertise-client-urls=" + scheme + "://127.0.0.1:" + m.clientPort,
                    "--listen-peer-urls=" + scheme + "://127.0.0.1:" + m.peerPort,
                    "--initial-advertise-peer-urls=" + scheme + "://127.0.0.1:" + m.peerPort,
                    "--initial-cluster=" + initial, "--initial-cluster-token=" + token,
                    "--initial-cluster-state=new", "--logger=zap", "--log-outputs=stderr"));
            if (tls != null) {
                EtcdTlsFiles t = tls;
                args.addAll(List.of("--cert-file=" + t.serverCertFile(i), "--key-file=" + t.serverKeyFile(i),
                        "--client-cert-auth", "--trusted-ca-file=" + t.serverTrustFile(),
                        "--peer-cert-file=" + t.serverCertFile(i), "--peer-key-file=" + t.serverKeyFile(i),
                        "--peer-client-cert-auth", "--peer-trusted-ca-file=" + t.serverTrustFile()));
            }
            if (b.jwtTokenTtl != null) {
                Path privateKey = dir.resolve("jwt.key");
                Path publicKey = dir.resolve("jwt.pub");
                if (!Files.exists(privateKey)) {
                    TestCertificates.writeJwtKeys(privateKey, publicKey);
                }
                args.add("--auth-token=jwt,pub-key=" + publicKey + ",priv-key=" + privateKey
                        + ",sign-method=RS256,ttl=" + b.jwtTokenTtl.toMillis() + "ms");
            } else if (b.simpleTokenTtl != null) {
                args.add("--auth-token-ttl=" + Math.max(1, b.simpleTokenTtl.toSeconds()));
            }
            m.args = List.copyOf(args);
            launch(m);
        }
        for (int i = 0; i < members.size(); i++) {
            awaitHealthy(i, START_TIMEOUT);
        }
        if (b.auth) {
            String password = "root-" + Long.toHexString(System.nanoTime());
            EtcdGateway g = gateway();
            g.post("/v3/auth/user/add", "{\"name\":\"root\",\"password\":\"" + password + "\"}", null);
            g.post("/v3/auth/user/grant", "{\"user\":\"root\",\"role\":\"root\"}", null);
            g.post("/v3/auth/enable", "{}", null);
            rootPassword = password;
        }
    }

    /** The root user's password; null unless the cluster was started with authentication. */
    public synchronized @Nullable String rootPassword() {
        return rootPassword;
    }

    /** The cluster's TLS files and CA; null unless it was started with TLS. */
    public synchronized @Nullable EtcdTlsFiles tls() {
        return tls;
    }

    /**
     * Adds etcd user {@code user} with {@code password} and a role {@code user-role} that may read
     * and write keys under {@code prefix} only (as {@code etcdctl role add}, {@code role
     * grant-permission --prefix=true readwrite}, {@code user add}, {@code user grant-role} do),
     * through etcd's JSON gateway as root.
     */
    public void addUser(String user, String password, String prefix) {
        addUser(user, password, prefix, "READWRITE");
    }

    /** As {@link #addUser(String, String, String)} with {@code permission} READ, WRITE or READWRITE. */
    public void addUser(String user, String password, String prefix, String permission) {
        gateway().addUser(user, password, prefix, permission);
    }

    /**
     * etcdctl's variables for a client of this cluster as {@code user} (with {@code password}):
     * {@code ETCDCTL_ENDPOINTS}, {@code ETCDCTL_USER}, and with TLS {@code ETCDCTL_CACERT} and a
     * client certificate of the cluster's CA for {@code user} written to the cluster's folder
     * ({@code ETCDCTL_CERT}, {@code ETCDCTL_KEY}). For child processes and commands under test.
     */
    public synchronized Map<String, String> etcdctlEnvironment(String user, String password) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("ETCDCTL_ENDPOINTS", endpoints());
        env.put("ETCDCTL_USER", user + ":" + password);
        EtcdTlsFiles t = tls;
        if (t != null) {
            TestCertificates.Issued client = t.client(user, TestCertificates.KeyKind.EC);
            env.put("ETCDCTL_CACERT", t.caFile().toString());
            env.put("ETCDCTL_CERT", client.writeCertificate(dir.resolve("tls").resolve("client-" + user + ".pem"))
                    .toString());
            env.put("ETCDCTL_KEY", client.writeKey(dir.resolve("tls").resolve("client-" + user + "-key.pem"),
                    TestCertificates.KeyFormat.TRADITIONAL).toString());
        }
        return env;
    }

    /**
     * The client endpoints of every member: {@code etcd://127.0.0.1:P1,...}, or
     * {@code https://127.0.0.1:P1,https://127.0.0.1:P2,...} with TLS.
     */
    public synchronized String endpoints() {
        if (tls != null) {
            return members.stream().map(m -> "https://127.0.0.1:" + m.clientPort).collect(Collectors.joining(","));
        }
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
            last = gateway().health(m.clientPort);
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
        int port = gateway().leaderPort();
        for (int i = 0; i < size(); i++) {
            if (clientPort(i) == port) {
                return i;
            }
        }
        throw new AssertionError("the leader's port " + port + " is no member's of " + this);
    }

    /**
     * Member {@code i}'s Prometheus metrics ({@code GET /metrics} on its client port), by series
     * (name and labels as etcd writes them): {@code etcd_debugging_mvcc_watch_stream_total},
     * {@code go_goroutines}, {@code grpc_server_msg_received_total{grpc_method="LeaseKeepAlive",...}}.
     */
    public Map<String, Double> metrics(int i) {
        return gateway().metrics(clientPort(i));
    }

    /** The JSON gateway and HTTP endpoints of the running members. */
    public synchronized EtcdGateway gateway() {
        List<Integer> running = new ArrayList<>();
        for (int i = 0; i < members.size(); i++) {
            if (pid(i) >= 0) {
                running.add(members.get(i).clientPort);
            }
        }
        return new EtcdGateway(running, tls == null ? null : tls.adminContext(), rootPassword);
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
