package io.blockxfer.examples;

import io.blockxfer.directory.Directory;
import io.blockxfer.directory.Membership;
import io.blockxfer.directory.memory.InMemoryCluster;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import java.time.Duration;

/** docs/membership.md: a transport kept in step with its deployment through a directory. Stateless. */
public final class ProductionMembership {

    private ProductionMembership() {
    }

    /**
     * Opens a transport, joins the deployment under {@code /kv/prod/} and writes to one member.
     *
     * @param config the transport's config, its agent name the member id
     * @param cluster the directory's cluster (etcd in production)
     * @param keys the deployment's key ring
     * @param peer a member of the deployment
     * @param local this transport's blocks
     * @param remote the member's blocks they go to
     */
    @SuppressWarnings("try") // the membership works while the try runs, unnamed
    public static void writeToAMember(TransportConfig config, InMemoryCluster cluster, DeploymentKeyRing keys,
            String peer, int[] local, int[] remote) {
        // @start region="membership"
        try (DataTransport transport = Transports.open(config);                  // agentName = member id
                Directory directory = cluster.connect("/kv/prod/");              // InMemoryCluster in tests
                Membership membership = Membership.builder(transport, directory)
                        .keyRing(keys).ttl(Duration.ofSeconds(15)).build()) {
            transport.writeBlocks(peer, local, remote);                          // any of membership.members()
        }
        // @end region="membership"
    }
}
