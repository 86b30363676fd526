package io.blockxfer.directory.etcd;

import io.blockxfer.directory.Directory;
import io.blockxfer.tck.directory.DirectoryDeployment;
import io.blockxfer.tck.directory.DirectoryFault;
import io.blockxfer.tck.process.EtcdCluster;
import io.blockxfer.tck.process.EtcdGrpcProxy;
import io.blockxfer.tck.process.EtcdTlsFiles;
import io.blockxfer.tck.process.TestCertificates;
import io.grpc.netty.GrpcSslContexts;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.CompactOption;
import io.etcd.jetcd.options.DeleteOption;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * The conformance kit's {@link DirectoryDeployment} on a real etcd: each client connects through
 * TCP proxies of its own (one per member), so it can be cut off while the cluster and the other
 * clients go on; a crashed client stops without a goodbye; raw writes, lease revocations and
 * compactions go through a plain jetcd client. Each deployment has a prefix of its own; the
 * cluster is this deployment's ({@link #start()}) or shared ({@link #on}).
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
final class EtcdDeployment implements DirectoryDeployment {

    /** The clients' operation timeout: short, so that calls to a cut-off client fail fast. */
    static final Duration OPERATION_TIMEOUT = Duration.ofSeconds(2);
    private static final AtomicInteger COUNT = new AtomicInteger();
    private static final long ADMIN_TIMEOUT_SECONDS = 10;

    private final EtcdCluster cluster;
    private final boolean ownsCluster;
    private final String prefix;
    private final Client admin;
    private final Map<Directory, List<TcpProxy>> clients = new ConcurrentHashMap<>();
    /** Where clients connect (each through a TCP proxy of its own): the members' ports, or a gRPC proxy's. */
    private final List<Integer> targets;
    private final String scheme;
    private final UnaryOperator<EtcdDirectory.Builder> settings;
    private final String via;

    private EtcdDeployment(EtcdCluster cluster, boolean ownsCluster) {
        this(cluster, ownsCluster, null, null);
    }

    /**
     * A deployment whose clients connect to {@code proxy} (when not null), over TLS with a client
     * certificate of the cluster's CA written in {@code dir} when the cluster has TLS.
     */
    private EtcdDeployment(EtcdCluster cluster, boolean ownsCluster, @Nullable EtcdGrpcProxy proxy,
            @Nullable Path dir) {
        this.cluster = cluster;
        this.ownsCluster = ownsCluster;
        this.prefix = "/blockxfer-test/d" + COUNT.incrementAndGet() + "-" + ProcessHandle.current().pid() + "/";
        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < cluster.size(); i++) {
            ports.add(cluster.clientPort(i));
        }
        this.targets = proxy == null ? ports : List.of(proxy.port());
        this.via = proxy == null ? "" : " through its gRPC proxy";
        EtcdTlsFiles tls = cluster.tls();
        if (tls == null) {
            this.scheme = "etcd://";
            this.settings = UnaryOperator.identity();
            this.admin = Client.builder().endpoints(EtcdEndpoints.parse(cluster.endpoints()).uris()).build();
        } else {
            Path folder = java.util.Objects.requireNonNull(dir, "a folder for the client's certificate");
            TestCertificates.Issued client = tls.client("", TestCertificates.KeyKind.EC);
            Path cert = client.writeCertificate(folder.resolve("client-" + COUNT.incrementAndGet() + ".pem"));
            Path key = client.writeKey(folder.resolve("client-" + COUNT.get() + "-key.pem"),
                    TestCertificates.KeyFormat.PKCS8);
            this.scheme = "https://";
            this.settings = b -> b.trustedCa(tls.caFile()).clientCertificate(cert, key);
            try {
                this.admin = Client.builder().endpoints(EtcdEndpoints.parse(cluster.endpoints()).uris())
                        .sslContext(GrpcSslContexts.forClient().trustManager(tls.caFile().toFile())
                                .keyManager(cert.toFile(), key.toFile()).build()).build();
            } catch (javax.net.ssl.SSLException e) {
                throw new IllegalStateException("the test's own etcd client cannot use TLS: " + e, e);
            }
        }
        // the first etcd call of a JVM loads gRPC, Netty and Vert.x (seconds on a loaded machine):
        // done here, it does not count against a client's operation timeout
        currentRevision();
    }

    /** A deployment on a one-member cluster of its own, stopped by {@link #close()}. */
    static EtcdDeployment start() {
        EtcdCluster cluster = EtcdCluster.start(1);
        try {
            return new EtcdDeployment(cluster, true);
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /** A deployment with a prefix of its own on {@code cluster}, which the caller stops. */
    static EtcdDeployment on(EtcdCluster cluster) {
        return new EtcdDeployment(cluster, false);
    }

    /**
     * A deployment with a prefix of its own on {@code cluster} whose clients connect to
     * {@code proxy} in front of it (with TLS when the cluster has it, a client certificate written
     * in {@code dir}); raw writes, revocations and compactions go to the cluster directly.
     */
    static EtcdDeployment through(EtcdGrpcProxy proxy, EtcdCluster cluster, Path dir) {
        return new EtcdDeployment(cluster, false, proxy, dir);
    }

    /** The deployment's prefix. */
    String prefix() {
        return prefix;
    }

    /** The cluster it runs on. */
    EtcdCluster cluster() {
        return cluster;
    }

    /** The plain jetcd client of raw writes, for tests that look at etcd directly. */
    Client admin() {
        return admin;
    }

    @Override
    public String name() {
        return "etcd " + cluster.version() + " (" + cluster.size() + (cluster.size() == 1 ? " member" : " members")
                + (cluster.tls() == null ? "" : ", TLS") + via + ")";
    }

    @Override
    public Directory connect() {
        return connect(OPERATION_TIMEOUT);
    }

    /** A client with its own proxies and the given operation timeout. */
    EtcdDirectory connect(Duration operationTimeout) {
        List<TcpProxy> proxies = new ArrayList<>();
        StringBuilder endpoints = new StringBuilder(scheme);
        for (int i = 0; i < targets.size(); i++) {
            TcpProxy proxy = new TcpProxy(targets.get(i));
            proxies.add(proxy);
            endpoints.append(i == 0 ? "" : ",").append("127.0.0.1:").append(proxy.port());
        }
        EtcdDirectory client = settings.apply(EtcdDirectory.builder(endpoints.toString()).prefix(prefix)
                .operationTimeout(operationTimeout).name("c" + COUNT.incrementAndGet())).build();
        clients.put(client, proxies);
        return client;
    }

    /** The TCP proxies {@code client} reaches etcd through, one per member. */
    List<TcpProxy> proxiesOf(Directory client) {
        List<TcpProxy> proxies = clients.get(client);
        if (proxies == null) {
            throw new IllegalArgumentException(client + " is not a client of this deployment");
        }
        return proxies;
    }

    @Override
    public Set<DirectoryFault> faults() {
        return EnumSet.allOf(DirectoryFault.class);
    }

    @Override
    public void elapse(Duration duration) {
        EtcdCluster.sleep(duration.toMillis());
    }

    @Override
    public void cutOff(Directory client) {
        proxies(client).forEach(TcpProxy::cut);
    }

    @Override
    public void reconnect(Directory client) {
        proxies(client).forEach(TcpProxy::restore);
    }

    @Override
    public void crash(Directory client) {
        ours(client).abandon();
        List<TcpProxy> proxies = clients.remove(client);
        if (proxies != null) {
            proxies.forEach(TcpProxy::close);
        }
    }

    @Override
    public void loseLease(String memberId) {
        ByteSequence key = bytes(prefix + memberId);
        List<KeyValue> kvs = admin(admin.getKVClient().get(key)).getKvs();
        if (kvs.isEmpty() || kvs.getFirst().getLease() == 0) {
            throw new IllegalStateException("no leased entry under " + prefix + memberId);
        }
        admin(admin.getLeaseClient().revoke(kvs.getFirst().getLease()));
    }

    @Override
    public void putRaw(String key, byte[] value) {
        admin(admin.getKVClient().put(bytes(key), ByteSequence.from(value)));
    }

    @Override
    public void deleteRaw(String key) {
        admin(admin.getKVClient().delete(bytes(key)));
    }

    @Override
    public void compact() {
        long revision = currentRevision();
        admin(admin.getKVClient().compact(revision, CompactOption.builder().withCompactPhysical(true).build()));
    }

    /** etcd's current revision. */
    long currentRevision() {
        return admin(admin.getKVClient().get(bytes(prefix))).getHeader().getRevision();
    }

    @Override
    public void close() {
        for (Directory client : List.copyOf(clients.keySet())) {
            client.close();
            List<TcpProxy> proxies = clients.remove(client);
            if (proxies != null) {
                proxies.forEach(TcpProxy::close);
            }
        }
        try {
            if (!ownsCluster) {
                admin(admin.getKVClient().delete(bytes(prefix), DeleteOption.builder().isPrefix(true).build()));
            }
        } catch (RuntimeException e) {
            System.err.println("could not delete " + prefix + ": " + e);
        } finally {
            admin.close();
            if (ownsCluster) {
                cluster.close();
            }
        }
    }

    private List<TcpProxy> proxies(Directory client) {
        List<TcpProxy> proxies = clients.get(client);
        if (proxies == null) {
            throw new IllegalArgumentException(client + " is not a live client of this deployment");
        }
        return proxies;
    }

    private EtcdDirectory ours(Directory client) {
        proxies(client);
        return (EtcdDirectory) client;
    }

    static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }

    static <T> T admin(CompletableFuture<T> call) {
        try {
            return call.get(ADMIN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("an etcd call of the test's own client failed: " + e, e);
        }
    }
}
