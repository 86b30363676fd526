package io.blockxfer.membership;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Members SIGKILLed, an etcd member killed and restarted, a member frozen past its TTL, over a real
 * three-member etcd with mutual TLS and authentication ({@link MembershipFaults}); the outages of
 * every etcd member are {@link EtcdOutageMembershipTest}'s.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class MembershipFaultTest extends MembershipFaults {

    @Test
    void aKilledMemberIsRemovedFromEveryTransportWithinTtlAndOneSecond() {
        kills("ucx", 1);
    }

    // full tier: five kills per backend (about a minute each) for the README's median and range, and
    // NIXL besides UCX; the fast tier kills one UCX member
    @Tag("full")
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"ucx", "nixl"})
    void killToRemovalOverFiveKills(String backend) {
        kills(backend, 5);
    }

    // full tier: about 16 s a case (three members meshed, an etcd member down for two TTLs), which
    // would take this module's fast tier past a minute; there, EtcdClusterFaultTest
    // (transport-directory-etcd) kills and restarts the leader under a directory client (no lease
    // lost, no delete, the watch goes on), and EtcdOutageMembershipTest keeps transfers going while
    // every etcd member is away
    @Tag("full")
    @ParameterizedTest(name = "{0}, {1}")
    @CsvSource({"ucx, leader", "ucx, follower", "nixl, leader", "nixl, follower"})
    void anEtcdMemberKilledAndRestartedDisturbsNoTransferAndNoMembership(String backend, String which) {
        etcdMemberRestart(backend, which);
    }

    @Test
    void aMemberPausedPastItsTtlNoticesRepublishesAndIsAddedAgainOnce() {
        paused("ucx");
    }

    // full tier: the same with NIXL members
    @Tag("full")
    @Test
    void aNixlMemberPausedPastItsTtl() {
        paused("nixl");
    }
}
