package io.blockxfer.tck.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * etcd's gRPC proxy in front of an {@link EtcdCluster}, for tests: {@code etcd grpc-proxy start}
 * of the same binary, a child process by pid on a free 127.0.0.1 port, with its data in a folder of
 * its own that {@link #close()} removes. It coalesces the watches of one key range and the lease
 * keep-alives of its clients into streams of its own to etcd: the way a fleet of thousands of
 * processes runs against one etcd.
 *
 * <p>With a TLS cluster the proxy talks TLS both ways: to its clients with a certificate of the
 * cluster's CA for 127.0.0.1, asking them for a client certificate of that CA
 * ({@code --cert-file}, {@code --key-file}, {@code --trusted-ca-file}); to etcd with a client
 * certificate of that CA without a CN ({@code --cert}, {@code --key}, {@code --cacert}), so that
 * with authentication on, a request that carries no user's token is no user's: clients
 * authenticate with a user and password, whose token the proxy passes on. The proxy sends answers
 * of up to 64 MiB ({@code --max-send-bytes}; its default of 1.5 MiB is below a listing page of
 * large entries).
 *
 * <p><b>Thread safety:</b> thread-safe (methods are synchronized).
 */
public final class EtcdGrpcProxy implements AutoCloseable {

    /** The largest answer the proxy sends, as large as the directory's client accepts. */
    public static final int MAX_SEND_BYTES = 64 * 1024 * 1024;

    private final EtcdCluster cluster;
    private final Path dir;
    private final int port;
    private final List<String> args;
    private @Nullable ChildProcess process;
    private boolean closed;

    private EtcdGrpcProxy(EtcdCluster cluster, Path dir, int port, List<String> args) {
        this.cluster = cluster;
        this.dir = dir;
        this.port = port;
        this.args = List.copyOf(args);
    }

    /** Starts a proxy in front of every member of {@code cluster} and waits until it answers. */
    public static EtcdGrpcProxy start(EtcdCluster cluster) {
        Path binary = EtcdCluster.requireBinary();
        Path dir;
        try {
            dir = Files.createTempDirectory("blockxfer-etcd-proxy-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        int port = EtcdCluster.freePorts(1).getFirst();
        List<String> args = new ArrayList<>(List.of(binary.toString(), "grpc-proxy", "start",
                "--listen-addr=127.0.0.1:" + port, "--advertise-client-url=127.0.0.1:" + port,
                "--data-dir=" + dir.resolve("data"), "--max-send-bytes=" + MAX_SEND_BYTES));
        String endpoints = cluster.endpoints();
        EtcdTlsFiles tls = cluster.tls();
        List<String> hostPorts = Stream.of(endpoints.replace("etcd://", "").split(",", -1))
                .map(e -> e.replace("https://", "").replace("http://", "")).toList();
        args.add("--endpoints=" + String.join(",", hostPorts));
        if (tls != null) {
            TestCertificates.Issued server = tls.ca().server("etcd-proxy");
            TestCertificates.Issued toEtcd = tls.client("", TestCertificates.KeyKind.EC);
            args.addAll(List.of(
                    "--cert-file=" + server.writeCertificate(dir.resolve("proxy.pem")),
                    "--key-file=" + server.writeKey(dir.resolve("proxy-key.pem"), TestCertificates.KeyFormat.PKCS8),
                    "--trusted-ca-file=" + tls.serverTrustFile(),
                    "--cert=" + toEtcd.writeCertificate(dir.resolve("to-etcd.pem")),
                    "--key=" + toEtcd.writeKey(dir.resolve("to-etcd-key.pem"), TestCertificates.KeyFormat.PKCS8),
                    "--cacert=" + tls.caFile()));
        }
        EtcdGrpcProxy proxy = new EtcdGrpcProxy(cluster, dir, port, args);
        try {
            proxy.launch();
            proxy.awaitServing(Duration.ofSeconds(30));
            return proxy;
        } catch (RuntimeException | Error e) {
            proxy.close();
            throw e;
        }
    }

    private synchronized void launch() {
        process = ChildProcess.builder(args).name("etcd-grpc-proxy").stderrTo(line -> { })
                .exitGrace(Duration.ofSeconds(2)).start();
    }

    /**
     * Waits until the proxy answers {@code /health} with etcd's health on its port (the proxy
     * serves and reaches etcd; its {@code /metrics} are etcd's, fetched without the proxy's client
     * certificate, so no use with TLS), or fails naming it.
     */
    private void awaitServing(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "no answer";
        while (System.nanoTime() < deadline) {
            ChildProcess p;
            synchronized (this) {
                p = process;
            }
            if (p == null || !p.isAlive()) {
                throw new AssertionError("the etcd gRPC proxy is not running: " + (p == null ? "never started"
                        : p.describe()));
            }
            last = health();
            if (last.contains("\"health\":\"true\"")) {
                return;
            }
            EtcdCluster.sleep(100);
        }
        throw new AssertionError("the etcd gRPC proxy on port " + port + " did not answer within "
                + timeout.toMillis() + " ms: " + last);
    }

    /**
     * The proxy's endpoint for clients: {@code etcd://127.0.0.1:P}, or {@code https://127.0.0.1:P}
     * when the cluster has TLS.
     */
    public synchronized String endpoints() {
        return (cluster.tls() != null ? "https://" : "etcd://") + "127.0.0.1:" + port;
    }

    /** The proxy's port. */
    public int port() {
        return port;
    }

    /** The proxy's pid; -1 when it is not running. */
    public synchronized long pid() {
        ChildProcess p = process;
        return p != null && p.isAlive() ? p.pid() : -1;
    }

    /** {@code SIGKILL}s the proxy: its clients lose their path to etcd. */
    public synchronized void kill() {
        ChildProcess p = process;
        if (p != null) {
            p.kill();
            p.close();
            process = null;
        }
    }

    /** Starts the proxy again, on the same port and files, and waits until it answers. */
    public void restart() {
        synchronized (this) {
            if (process != null && process.isAlive()) {
                throw new IllegalStateException("the proxy still runs (pid " + process.pid() + ")");
            }
            launch();
        }
        awaitServing(Duration.ofSeconds(30));
    }

    /** {@code GET /health} on the proxy's port: its answer (the proxy asks etcd), or the error. */
    private String health() {
        EtcdTlsFiles tls = cluster.tls();
        return new EtcdGateway(List.of(port), tls == null ? null : tls.adminContext(), null).health(port);
    }

    /** The proxy's last stderr lines, for messages. */
    public synchronized String describe() {
        ChildProcess p = process;
        return p == null ? "etcd gRPC proxy (not running)" : p.describe();
    }

    /** Kills the proxy and removes its folder. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        ChildProcess p = process;
        if (p != null) {
            p.kill();
            p.close();
            process = null;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path f : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(f);
            }
        } catch (IOException e) {
            System.err.println("could not remove " + dir + ": " + e);
        }
    }

    @Override
    public synchronized String toString() {
        return "etcd gRPC proxy " + endpoints() + " in front of " + cluster + " (" + args.stream()
                .filter(a -> a.startsWith("--cert") || a.startsWith("--trusted")).map(a -> a.substring(0, a.indexOf('=')))
                .collect(Collectors.joining(" ")) + ")";
    }
}
