package io.blockxfer.examples;

import io.blockxfer.directory.Directory;
import io.blockxfer.directory.Membership;
import io.blockxfer.directory.etcd.EtcdDirectory;
import io.blockxfer.directory.memory.InMemoryCluster;
import io.blockxfer.micrometer.MicrometerMembershipListener;
import io.blockxfer.tck.directory.DirectoryConformanceSuite;
import io.blockxfer.tck.directory.DirectoryDeployment;
import io.blockxfer.tck.directory.DirectoryFault;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.ExecutionException;

/**
 * transport-directory/README.md: a membership on an in-memory directory, members resolved on
 * demand, a membership on etcd, and a directory's conformance suite. Stateless.
 */
public final class DirectoryMembership {

    private DirectoryMembership() {
    }

    /**
     * Joins a deployment on an in-memory directory and writes to every member.
     *
     * @param keyFile the deployment's key, at least 32 random bytes
     * @param numBlocks the region's blocks
     * @param blockBytes the length of a block
     * @param registry where the membership's meters go
     * @param localBlocks this transport's blocks
     * @param remoteBlocks each member's blocks they go to
     * @throws IOException if the key file cannot be read
     */
    public static void writeToEveryMember(Path keyFile, int numBlocks, long blockBytes, MeterRegistry registry,
            int[] localBlocks, int[] remoteBlocks) throws IOException {
        // @start region="using"
        DeploymentKeyRing keys = DeploymentKeyRing.of("2026-05", Files.readAllBytes(keyFile));
        TransportConfig config = TransportConfig.builder(RegionSpec.allocate(numBlocks, blockBytes))
                .agentName("prefill-0")                 // the member id, unless Membership.Builder.memberId sets one
                .keyRing(keys)
                .build();
        InMemoryCluster cluster = InMemoryCluster.create();           // in a test; on etcd see below
        try (DataTransport transport = Transports.open(config);
                Directory directory = cluster.connect("/kv/prod/");   // one deployment = one prefix
                Membership membership = Membership.builder(transport, directory)
                        .keyRing(keys)                                // the transports' ring
                        .ttl(Duration.ofSeconds(15))                  // see "Choosing the TTL"
                        .listener(new MicrometerMembershipListener(registry))
                        .build()) {
            // the transport's peers follow the directory by themselves:
            for (String peer : membership.members().keySet()) {
                transport.writeBlocks(peer, localBlocks, remoteBlocks);
            }
        }
        // @end region="using"
    }

    /**
     * A prefill process that follows nobody and resolves the decode worker it writes to.
     *
     * @param transport the process's transport
     * @param directory the deployment's directory
     * @param keys the deployment's key ring
     * @param localBlocks this transport's blocks
     * @param remoteBlocks the decode worker's blocks they go to
     * @return the membership, to close
     * @throws InterruptedException if interrupted while resolving
     * @throws ExecutionException if the member could not be resolved
     */
    @SuppressWarnings("unused") // `epoch` is what a reader goes on with
    public static Membership onDemand(DataTransport transport, Directory directory, DeploymentKeyRing keys,
            int[] localBlocks, int[] remoteBlocks) throws InterruptedException, ExecutionException {
        // @start region="on-demand"
        Membership membership = Membership.builder(transport, directory)
                .keyRing(keys)
                .group("prefill")            // this process's role: its entry names it (under the MAC)
                .followNone()                // or .followGroups("decode"), or .followAll() (the default)
                .maxHeld(64)                 // members held through resolve(); the idle longest go first
                .build();
        long epoch = membership.resolve("decode-17").get();   // read, check, add: writable now
        transport.writeBlocks("decode-17", localBlocks, remoteBlocks);
        membership.release("decode-17");                     // or let the limit release it when idle
        // @end region="on-demand"
        return membership;
    }

    /**
     * Keeps {@code transport} in step with a deployment on etcd while the try runs.
     *
     * @param transport the process's transport
     * @param keys the deployment's key ring
     */
    @SuppressWarnings("try") // the membership works while the try runs, unnamed
    public static void onEtcd(DataTransport transport, DeploymentKeyRing keys) {
        // @start region="on-etcd"
        try (EtcdDirectory directory = EtcdDirectory.builder("etcd://e1:2379,e2:2379,e3:2379")
                .prefix("/kv/prod/").build();
                Membership membership = Membership.builder(transport, directory).keyRing(keys).build()) {
            // the transport's peers follow the deployment
        }
        // @end region="on-etcd"
    }

    /**
     * A directory's conformance suite, as its test sources declare it (there as a top-level class).
     *
     * @return its class
     */
    public static Class<? extends DirectoryConformanceSuite> suite() {
        // @start region="directory-kit"
        class MyDirectoryConformanceTest extends DirectoryConformanceSuite {
            @Override protected DirectoryDeployment deployment() { return new MyDeployment(); }
        }
        // @end region="directory-kit"
        return MyDirectoryConformanceTest.class;
    }

    /** A deployment on a fresh in-memory cluster with a manual clock, for {@link #suite()}. Not thread-safe. */
    static final class MyDeployment implements DirectoryDeployment {
        private final InMemoryCluster cluster = InMemoryCluster.withManualClock();

        @Override
        public String name() {
            return "in-memory (manual clock)";
        }

        @Override
        public Directory connect() {
            return cluster.connect("/my/deployment/");
        }

        @Override
        public Set<DirectoryFault> faults() {
            return EnumSet.noneOf(DirectoryFault.class);
        }

        @Override
        public void elapse(Duration duration) {
            cluster.advance(duration);
        }

        @Override
        public void close() {
            cluster.close();
        }
    }
}
