package io.blockxfer.directory.etcd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.directory.DirectoryEvent;
import io.blockxfer.directory.DirectoryWatch;
import io.blockxfer.directory.Membership;
import io.blockxfer.directory.MembershipListener;
import io.blockxfer.directory.Publication;
import io.blockxfer.directory.PublicationListener;
import io.blockxfer.tck.process.EtcdCluster;
import io.blockxfer.tck.process.EtcdTlsFiles;
import io.blockxfer.tck.process.TestCertificates;
import io.blockxfer.tck.process.TestCertificates.KeyFormat;
import io.blockxfer.tck.process.TestCertificates.KeyKind;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Certificates renewed in place are picked up without a restart: a member on a real etcd with
 * mutual TLS and authentication publishes and watches; etcd's CA is replaced (its certificate and
 * trusted CAs, {@link EtcdTlsFiles#rotate()}), and the member's client certificate, key and CA
 * bundle are rewritten in place with ones of the new CA (another key kind and format too). The
 * established connection goes on; etcd is then restarted, so that only the renewed files can
 * connect (the old ones are refused, which the test shows), and the member reconnects with them:
 * its lease is not lost, its watch sees an entry written while it was away and one after, and
 * it publishes again. And the same with two memberships of loopback transports writing to each other
 * all along: no transfer fails, every one ends, and neither member removes the other or loses its
 * lease.
 */
class EtcdCertificateRotationTest {

    private static final Duration TTL = Duration.ofSeconds(10);
    private static final Duration WAIT = Duration.ofSeconds(20);

    @Test
    void aRenewedCertificateAndCaBundleArePickedUpWithoutLosingTheLeaseOrAnEvent(@TempDir Path dir)
            throws Exception {
        try (EtcdCluster etcd = EtcdCluster.builder(1).tls().auth().start()) {
            etcd.addUser("alice", "alice-pw", "/r/");
            EtcdTlsFiles tls = etcd.tls();
            assertTrue(tls != null);
            Path ca = Files.copy(tls.caFile(), dir.resolve("ca.pem"));
            TestCertificates.Issued first = tls.client("alice", KeyKind.EC);
            Path cert = first.writeCertificate(dir.resolve("client.pem"));
            Path key = first.writeKey(dir.resolve("client-key.pem"), KeyFormat.TRADITIONAL);
            Path oldCa = Files.copy(ca, dir.resolve("old-ca.pem"));
            Path oldCert = Files.copy(cert, dir.resolve("old-client.pem"));
            Path oldKey = Files.copy(key, dir.resolve("old-client-key.pem"));
            EtcdDirectory.Builder builder = EtcdDirectory.builder(etcd.endpoints()).prefix("/r/").trustedCa(ca)
                    .clientCertificate(cert, key).user("alice").password("alice-pw".toCharArray());
            List<String> lost = new CopyOnWriteArrayList<>();
            PublicationListener listener = (p, why) -> lost.add(p.memberId() + ": " + why);
            Recorder r = new Recorder();
            try (EtcdDirectory d = builder.build();
                    Publication m1 = d.publish("m1", new byte[] {1}, TTL, listener);
                    DirectoryWatch _ = d.watch(r)) {
                r.awaitView(v -> v.containsKey("/r/m1"), WAIT, "m1");

                TestCertificates.Ca renewed = tls.rotate();
                TestCertificates.Issued second = renewed.client("alice", KeyKind.RSA);
                second.writeCertificate(cert);
                second.writeKey(key, KeyFormat.PKCS8);
                renewed.write(ca);
                // the established connection is untouched
                try (Publication m2 = d.publish("m2", new byte[] {2}, TTL, listener)) {
                    r.awaitView(v -> v.containsKey("/r/m2"), WAIT, "m2 over the established connection");

                    etcd.kill(0);
                    etcd.restart(0);
                    etcd.awaitHealthy(0, Duration.ofSeconds(30));
                    // the old files no longer connect: the member's reconnect used the renewed ones
                    assertThrows(EtcdTlsException.class, () -> EtcdDirectory.builder(etcd.endpoints()).prefix("/r/")
                            .trustedCa(oldCa).clientCertificate(oldCert, oldKey).user("alice")
                            .password("alice-pw".toCharArray()).build().close());
                    try (EtcdDirectory other = builder.build();
                            Publication _ = other.publish("m3", new byte[] {3}, TTL, PublicationListener.NONE)) {
                        r.awaitView(v -> v.containsKey("/r/m3"), WAIT, "m3, written while the member reconnected");
                        try (Publication _ = d.publish("m4", new byte[] {4}, TTL, listener)) {
                            r.awaitView(v -> v.containsKey("/r/m4"), WAIT, "m4, published after the renewal");
                        }
                    }
                    assertFalse(m1.isLost() || m2.isLost(), "lost: " + lost);
                }
            }
            assertEquals(List.of(), lost);
            assertEquals(List.of(), r.violations(), r.describe());
            assertTrue(r.events().stream().noneMatch(e -> e.key().equals("/r/m1")
                    && e.type() == DirectoryEvent.Type.DELETE), r.describe());
        }
    }

    @Test
    void transfersBetweenMembersGoOnWhileTheirCertificatesAreRenewedInPlace(@TempDir Path dir) throws Exception {
        try (EtcdCluster etcd = EtcdCluster.builder(1).tls().auth().start()) {
            etcd.addUser("alice", "alice-pw", "/t/");
            EtcdTlsFiles tls = etcd.tls();
            assertTrue(tls != null);
            Path ca = Files.copy(tls.caFile(), dir.resolve("ca.pem"));
            TestCertificates.Issued first = tls.client("alice", KeyKind.EC);
            Path cert = first.writeCertificate(dir.resolve("client.pem"));
            Path key = first.writeKey(dir.resolve("client-key.pem"), KeyFormat.PKCS8);
            List<String> events = new CopyOnWriteArrayList<>();
            MembershipListener listener = new MembershipListener() {
                @Override
                public void leaseLost(String memberId, long epoch, String reason) {
                    events.add(memberId + " lost its lease: " + reason);
                }

                @Override
                public void memberRemoved(String memberId, long epoch) {
                    events.add("removed " + memberId);
                }
            };
            try (DataTransport a = loopback("a");
                    DataTransport b = loopback("b");
                    EtcdDirectory da = directory(etcd, ca, cert, key, "a");
                    EtcdDirectory db = directory(etcd, ca, cert, key, "b");
                    Membership ma = Membership.builder(a, da).ttl(TTL).listener(listener).build();
                    Membership mb = Membership.builder(b, db).ttl(TTL).listener(listener).build()) {
                long until = System.nanoTime() + WAIT.toNanos();
                while (!ma.members().containsKey("b") || !mb.members().containsKey("a")) {
                    assertTrue(System.nanoTime() < until, "the members did not find each other: " + ma + ", " + mb);
                    Thread.sleep(20);
                }
                long[] counts = new long[2]; // done, failed
                writeFor(a, "b", Duration.ofSeconds(1), counts);
                TestCertificates.Ca renewed = tls.rotate();
                TestCertificates.Issued second = renewed.client("alice", KeyKind.RSA);
                second.writeCertificate(cert);
                second.writeKey(key, KeyFormat.TRADITIONAL);
                renewed.write(ca);
                writeFor(a, "b", Duration.ofSeconds(1), counts);
                etcd.kill(0);
                writeFor(a, "b", Duration.ofSeconds(1), counts);
                etcd.restart(0);
                etcd.awaitHealthy(0, Duration.ofSeconds(30));
                // past a TTL: the leases were renewed over connections made with the renewed files
                writeFor(a, "b", TTL.plusSeconds(2), counts);
                assertEquals(0, counts[1], "transfers failed; membership events: " + events);
                assertTrue(counts[0] > 100, "only " + counts[0] + " transfers done");
                assertTrue(ma.members().containsKey("b") && mb.members().containsKey("a"), ma + ", " + mb);
            }
            assertEquals(List.of(), events);
        }
    }

    private static DataTransport loopback(String agent) {
        return Transports.open(TransportConfig.builder(RegionSpec.allocate(4, 4096)).transport("loopback")
                .agentName(agent).transferTimeout(Duration.ofSeconds(5)).build());
    }

    private static EtcdDirectory directory(EtcdCluster etcd, Path ca, Path cert, Path key, String name) {
        return EtcdDirectory.builder(etcd.endpoints()).prefix("/t/").name(name).trustedCa(ca)
                .clientCertificate(cert, key).user("alice").password("alice-pw".toCharArray()).build();
    }

    /** Writes one block from {@code from} to {@code to} again and again for {@code time}, each ended. */
    private static void writeFor(DataTransport from, String to, Duration time, long[] counts) throws Exception {
        long end = System.nanoTime() + time.toNanos();
        while (System.nanoTime() < end) {
            long id = from.writeBlocks(to, new int[] {0}, new int[] {1});
            assertTrue(id != DataTransport.NOT_SUBMITTED, "b is not registered at a");
            PollResult r = PollResult.EMPTY;
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (r.isEmpty()) {
                assertTrue(System.nanoTime() < deadline, "transfer " + id + " did not end");
                r = from.poll(to, 100, TimeUnit.MILLISECONDS);
            }
            counts[0] += r.doneCount();
            counts[1] += r.failedCount();
        }
    }
}
