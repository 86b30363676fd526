package io.blockxfer.directory.etcd;

import io.blockxfer.tck.directory.DirectoryConformanceSuite;
import io.blockxfer.tck.directory.DirectoryDeployment;
import io.blockxfer.tck.directory.DirectoryRules;
import io.blockxfer.tck.process.EtcdCluster;
import io.blockxfer.tck.process.EtcdGrpcProxy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/**
 * The etcd directory certified by the directory conformance kit through etcd's gRPC proxy
 * ({@code etcd grpc-proxy start}, the way a fleet of thousands runs against one etcd), with TLS
 * from the clients to the proxy (a client certificate of the cluster's CA, which the proxy checks)
 * and from the proxy to etcd ({@code --client-cert-auth}); raw writes, revocations and compactions
 * go to etcd directly, as another tool of the deployment's would.
 */
// full tier: the directory kit a second time, through etcd's gRPC proxy with TLS both ways (its D rules
// and the B rules that lean on reconnects and resolutions), about 60 s; the fast tier's
// EtcdWatchStreamTest and the direct kit cover the same calls without the proxy in between
@Tag("full")
class EtcdProxyConformanceTest extends DirectoryConformanceSuite {

    private static @Nullable EtcdCluster cluster;
    private static @Nullable EtcdGrpcProxy proxy;
    private static @Nullable Path dir;

    @BeforeAll
    static void startEtcdAndItsProxy() throws IOException {
        cluster = EtcdCluster.builder(1).tls().start();
        proxy = EtcdGrpcProxy.start(cluster);
        dir = Files.createTempDirectory("blockxfer-proxy-kit-");
    }

    @AfterAll
    static void stopThem() throws IOException {
        if (proxy != null) {
            proxy.close();
        }
        if (cluster != null) {
            cluster.close();
        }
        if (dir != null) {
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    Files.deleteIfExists(f);
                }
            }
            Files.deleteIfExists(dir);
        }
    }

    /**
     * The directory contract (every D rule: what the proxy relays and coalesces, leases, outages,
     * compaction, reads and watches from a read), and the membership rules that lean on the watches'
     * reconnects and on resolutions (B3, B10, B17, B19, B22, B23); the other membership rules check
     * the membership's own logic over the same calls, which the direct kit covers
     * ({@code EtcdDirectoryConformanceTest}).
     */
    @Override
    protected Set<DirectoryRules> rules() {
        Set<DirectoryRules> rules = EnumSet.noneOf(DirectoryRules.class);
        for (DirectoryRules r : DirectoryRules.values()) {
            if (!r.area().needsTransports()) {
                rules.add(r);
            }
        }
        rules.addAll(List.of(DirectoryRules.B3, DirectoryRules.B10, DirectoryRules.B17, DirectoryRules.B19,
                DirectoryRules.B22, DirectoryRules.B23));
        return rules;
    }

    @Override
    protected DirectoryDeployment deployment() {
        if (cluster == null || proxy == null || dir == null) {
            throw new UncheckedIOException(new IOException("etcd or its proxy did not start"));
        }
        return EtcdDeployment.through(proxy, cluster, dir);
    }
}
