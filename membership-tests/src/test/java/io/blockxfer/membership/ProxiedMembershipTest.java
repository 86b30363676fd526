package io.blockxfer.membership;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.tck.process.EtcdCluster;
import io.blockxfer.tck.process.EtcdGrpcProxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Memberships of UCX members in child JVMs through etcd's gRPC proxy ({@code etcd grpc-proxy
 * start}, as a fleet of thousands runs) in front of the three-member etcd of
 * {@link MembershipFaults}: TLS from the members to the proxy (their client certificates checked
 * by it) and from the proxy to etcd, the members authenticating as the deployments' user, whose
 * token the proxy passes on. A member SIGKILLed mid-transfer is removed by the others within TTL +
 * 1 s; every transfer between the survivors lands, every id ends once; and the proxy was their path
 * to etcd: killed, it cuts them off (each reports the disconnect), restarted, they are back.
 */
// full tier: the membership suite's kill through etcd's gRPC proxy, and the proxy killed and restarted,
// about 30 s with a three-member TLS cluster of its own; the fast tier runs the same kill against etcd
// directly (MembershipFaultTest) and the directory's watch stream in EtcdWatchStreamTest
@Tag("full")
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class ProxiedMembershipTest extends MembershipFaults {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static EtcdGrpcProxy proxy;

    @BeforeAll
    static void startProxy() {
        proxy = EtcdGrpcProxy.start(cluster());
    }

    @AfterAll
    static void stopProxy() {
        if (proxy != null) {
            proxy.close();
        }
    }

    @Override
    String endpoints(EtcdCluster etcd) {
        return proxy.endpoints();
    }

    @Test
    void aKilledMemberIsRemovedEverywhereThroughEtcdsGrpcProxy() {
        kills("ucx", 1);
        // the survivors' only path to etcd is the proxy: without it they are cut off, with it back again
        List<MemberProcess> survivors = List.of(deployment().member("m0"), deployment().member("m1"));
        List<Integer> before = survivors.stream().map(s -> s.events().size()).toList();
        proxy.kill();
        for (int i = 0; i < survivors.size(); i++) {
            MemberProcess s = survivors.get(i);
            s.awaitEvent(before.get(i), e -> e.is("DISCONNECTED", s.id()), WAIT, "DISCONNECTED once the proxy was"
                    + " killed");
        }
        proxy.restart();
        for (int i = 0; i < survivors.size(); i++) {
            MemberProcess s = survivors.get(i);
            s.awaitEvent(before.get(i), e -> e.is("RECONNECTED", s.id()), WAIT, "RECONNECTED through the restarted"
                    + " proxy");
        }
        assertTrue(proxy.pid() > 0);
    }
}
