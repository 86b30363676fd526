package io.blockxfer.membership;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every member of a real three-member etcd with mutual TLS and authentication down, then back, under
 * memberships binding real transports in separate processes ({@link MembershipFaults}): transfers go
 * on, leases are lost and published again. A class of its own, with its own etcd cluster, so that it
 * runs beside {@link MembershipFaultTest} (the module's waitingForks).
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class EtcdOutageMembershipTest extends MembershipFaults {

    @Test
    void everyEtcdMemberDownForSixSecondsThenBack() {
        outage("ucx", Duration.ofSeconds(6));
    }

    // full tier: the 30 s outage (about a minute and a half each), UCX and NIXL; the fast
    // tier's 6 s outage under UCX members covers the same path (leases lost, resume, re-publication)
    @Tag("full")
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"ucx", "nixl"})
    void everyEtcdMemberDownForThirtySecondsThenBack(String backend) {
        outage(backend, Duration.ofSeconds(30));
    }
}
