package io.blockxfer.directory.etcd;

import io.blockxfer.tck.directory.DirectoryConformanceSuite;
import io.blockxfer.tck.directory.DirectoryDeployment;
import io.blockxfer.tck.process.EtcdCluster;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/**
 * The etcd directory certified by the directory conformance kit, on a real one-member etcd that
 * the class starts (skipped without an {@code etcd} binary unless {@code blockxfer.etcd.require}
 * is set); each rule gets a prefix of its own on it.
 */
// full tier: the whole directory kit on a real etcd, about 45 s; the fast tier runs the same kit on the
// in-memory directory (InMemoryDirectoryConformanceTest) and etcd's own behaviours in EtcdDirectoryTest
@Tag("full")
class EtcdDirectoryConformanceTest extends DirectoryConformanceSuite {

    private static @Nullable EtcdCluster cluster;

    @BeforeAll
    static void startEtcd() {
        cluster = EtcdCluster.start(1);
    }

    @AfterAll
    static void stopEtcd() {
        EtcdCluster c = cluster;
        cluster = null;
        if (c != null) {
            c.close();
        }
    }

    @Override
    protected DirectoryDeployment deployment() {
        EtcdCluster c = cluster;
        if (c == null) {
            throw new IllegalStateException("etcd did not start");
        }
        return EtcdDeployment.on(c);
    }
}
