package io.blockxfer.directory.etcd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.directory.DirectoryWatch;
import io.blockxfer.directory.Publication;
import io.blockxfer.directory.PublicationListener;
import io.blockxfer.tck.process.EtcdCluster;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A member whose etcd token expires keeps its lease and its watch: against a real etcd with
 * authentication and a token TTL of 1 s (JWT tokens, which etcd never extends, and simple tokens
 * with {@code --auth-token-ttl}), a member publishes and watches, publishes again after an auth
 * change (a user added: older tokens are "revision of auth store is old"), then, each time after
 * its token expired, publishes again (a put with an expired token), sees another client's entry through its
 * watch, and, after etcd was killed and restarted (simple tokens die with it), sees an entry written
 * meanwhile through its re-created watch. No lease is reported lost, no event is missed or doubled.
 */
class EtcdTokenExpiryTest {

    private static final Duration TOKEN_TTL = Duration.ofSeconds(1);
    private static final Duration TTL = Duration.ofSeconds(10);
    private static final Duration WAIT = Duration.ofSeconds(15);

    @Test
    void aMemberKeepsItsLeaseAndWatchAcrossExpiredJwtTokens() {
        try (EtcdCluster etcd = EtcdCluster.builder(1).auth().jwtTokenTtl(TOKEN_TTL).start()) {
            survivesExpiredTokens(etcd);
        }
    }

    // full tier: the simple-token form of the JWT case, another etcd and about 10 s
    @Tag("full")
    @Test
    void aMemberKeepsItsLeaseAndWatchAcrossExpiredSimpleTokens() {
        try (EtcdCluster etcd = EtcdCluster.builder(1).auth().simpleTokenTtl(TOKEN_TTL).start()) {
            survivesExpiredTokens(etcd);
        }
    }

    private static EtcdDirectory.Builder alice(EtcdCluster etcd) {
        return EtcdDirectory.builder(etcd.endpoints()).prefix("/t/").user("alice").password("alice-pw".toCharArray());
    }

    private static void survivesExpiredTokens(EtcdCluster etcd) {
        etcd.addUser("alice", "alice-pw", "/t/");
        List<String> lost = new CopyOnWriteArrayList<>();
        PublicationListener listener = (p, why) -> lost.add(p.memberId() + ": " + why);
        Recorder r = new Recorder();
        try (EtcdDirectory d = alice(etcd).build();
                Publication m1 = d.publish("m1", new byte[] {1}, TTL, listener);
                DirectoryWatch _ = d.watch(r)) {
            r.awaitView(v -> v.containsKey("/t/m1"), WAIT, "m1");
            // an auth change: etcd answers tokens issued before it with "revision of auth store is old"
            etcd.addUser("bob", "bob-pw", "/other/");
            try (Publication _ = d.publish("m0", new byte[] {0}, TTL, listener)) {
                r.awaitView(v -> v.containsKey("/t/m0"), WAIT, "m0, after an auth change");
            }
            EtcdCluster.sleep(TOKEN_TTL.toMillis() * 2 + 500);
            // a put with an expired token: jetcd authenticates again
            try (Publication m2 = d.publish("m2", new byte[] {2}, TTL, listener)) {
                r.awaitView(v -> v.containsKey("/t/m2"), WAIT, "m2");
                EtcdCluster.sleep(TOKEN_TTL.toMillis() * 2 + 500);
                // the watch is re-created after etcd's restart, with an expired (or forgotten) token
                etcd.kill(0);
                etcd.restart(0);
                etcd.awaitHealthy(0, Duration.ofSeconds(30));
                try (EtcdDirectory other = alice(etcd).build();
                        Publication _ = other.publish("m3", new byte[] {3}, TTL, PublicationListener.NONE)) {
                    r.awaitView(v -> v.containsKey("/t/m3"), WAIT, "m3 through the re-created watch");
                    // and the first member still writes
                    try (Publication _ = d.publish("m4", new byte[] {4}, TTL, listener)) {
                        r.awaitView(v -> v.containsKey("/t/m4"), WAIT, "m4");
                    }
                }
                assertFalse(m1.isLost() || m2.isLost(), "lost: " + lost);
            }
            assertEquals(List.of(), lost);
            assertEquals(List.of(), r.violations(), r.describe());
            assertTrue(r.events().stream().noneMatch(e -> e.key().equals("/t/m1")
                    && e.type() == io.blockxfer.directory.DirectoryEvent.Type.DELETE), r.describe());
        }
    }
}
