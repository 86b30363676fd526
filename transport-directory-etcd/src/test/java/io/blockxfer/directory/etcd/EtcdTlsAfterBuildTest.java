package io.blockxfer.directory.etcd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.directory.Membership;
import io.blockxfer.directory.MembershipListener;
import io.blockxfer.directory.Publication;
import io.blockxfer.directory.PublicationListener;
import io.blockxfer.directory.etcd.EtcdTlsException.Reason;
import io.blockxfer.tck.process.EtcdCluster;
import io.blockxfer.tck.process.EtcdTlsFiles;
import io.blockxfer.tck.process.TestCertificates;
import io.blockxfer.tck.process.TestCertificates.KeyFormat;
import io.blockxfer.tck.process.TestCertificates.KeyKind;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS that goes wrong after {@code build()} checked it, against a real etcd with client TLS: files
 * renewed in place that etcd no longer accepts, or a CA that etcd rotated away from under a client
 * that kept the old one. The connection made before stays; the next one (etcd restarted) fails, and
 * every call then says why with its {@link EtcdTlsException.Reason} (not "unreachable"), and so
 * does a membership that can no longer publish.
 */
// full tier: two TLS clusters of their own, each restarted once to make the clients handshake again,
// about 25 s; the fast tier's EtcdTlsTest refuses every misconfiguration at build() and TlsFailuresTest
// names a certificate refused mid-handshake
@Tag("full")
class EtcdTlsAfterBuildTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(3);
    private static final Duration WAIT = Duration.ofSeconds(30);

    /** What a membership said about publishing: the reasons of its failures. */
    private static final class Failures implements MembershipListener {
        final List<Throwable> failed = new CopyOnWriteArrayList<>();

        @Override
        public void publishFailed(String memberId, Throwable cause) {
            failed.add(cause);
        }
    }

    private static void restart(EtcdCluster etcd) {
        etcd.kill(0);
        etcd.restart(0);
        etcd.awaitHealthy(0, WAIT);
    }

    /** Publishes through {@code d}, which must fail with {@code reason}; returns the failure. */
    private static EtcdTlsException refused(EtcdDirectory d, Reason reason) {
        RuntimeException thrown = assertThrows(RuntimeException.class, () -> d.publish("probe", new byte[] {1},
                Duration.ofSeconds(10), PublicationListener.NONE).close());
        if (!(thrown instanceof EtcdTlsException e)) {
            throw new AssertionError("not refused as " + reason + ": " + thrown, thrown);
        }
        assertEquals(reason, e.reason(), e.getMessage());
        return e;
    }

    /** Waits until {@code failures} holds an EtcdTlsException of {@code reason}, and returns it. */
    private static EtcdTlsException awaitPublishFailure(Failures failures, Reason reason) throws InterruptedException {
        long end = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() - end < 0) {
            for (Throwable t : failures.failed) {
                if (t instanceof EtcdTlsException e && e.reason() == reason) {
                    return e;
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the membership reported no publication failing with " + reason + ": "
                + failures.failed);
    }

    @Test
    void aClientCertificateRenewedWithOneEtcdDoesNotTrustIsReportedAsRejected(@TempDir Path dir) throws Exception {
        try (EtcdCluster etcd = EtcdCluster.builder(1).tls().start()) {
            EtcdTlsFiles tls = etcd.tls();
            assertTrue(tls != null);
            TestCertificates.Issued good = tls.client("member", KeyKind.EC);
            Path cert = good.writeCertificate(dir.resolve("client.pem"));
            Path key = good.writeKey(dir.resolve("client-key.pem"), KeyFormat.TRADITIONAL);
            try (EtcdDirectory d = EtcdDirectory.builder(etcd.endpoints()).prefix("/after/").operationTimeout(TIMEOUT)
                    .trustedCa(tls.caFile()).clientCertificate(cert, key).build();
                    Publication before = d.publish("m", new byte[] {1}, Duration.ofSeconds(10),
                            PublicationListener.NONE)) {
                // renewed badly: a whole, usable certificate and key, but of a CA etcd does not trust
                TestCertificates.Issued stranger = TestCertificates.ca("a-ca-etcd-never-saw").client("member",
                        KeyKind.EC);
                stranger.writeCertificate(cert);
                stranger.writeKey(key, KeyFormat.TRADITIONAL);
                restart(etcd);
                EtcdTlsException e = refused(d, Reason.CLIENT_CERTIFICATE_REJECTED);
                assertTrue(e.getMessage().contains(cert.toString()), "names the certificate file: " + e.getMessage());
                assertTrue(e.getMessage().contains("127.0.0.1:" + etcd.clientPort(0)), e.getMessage());
                assertTrue(before.revision() > 0);
            }
        }
    }

    @Test
    void aCaRotatedAwayFromUnderAClientIsReportedAsAnUntrustedServerByItsCallsAndItsMembership(@TempDir Path dir)
            throws Exception {
        try (EtcdCluster etcd = EtcdCluster.builder(1).tls().start();
                DataTransport transport = Transports.open(TransportConfig.builder(RegionSpec.allocate(1, 64))
                        .transport("loopback").agentName("m").build())) {
            EtcdTlsFiles tls = etcd.tls();
            assertTrue(tls != null);
            Path ca = Files.copy(tls.caFile(), dir.resolve("ca.pem")); // the client's copy: never renewed
            TestCertificates.Issued issued = tls.client("member", KeyKind.EC);
            Path cert = issued.writeCertificate(dir.resolve("client.pem"));
            Path key = issued.writeKey(dir.resolve("client-key.pem"), KeyFormat.TRADITIONAL);
            Failures failures = new Failures();
            try (EtcdDirectory d = EtcdDirectory.builder(etcd.endpoints()).prefix("/after/").operationTimeout(TIMEOUT)
                    .trustedCa(ca).clientCertificate(cert, key).build();
                    Membership m = Membership.builder(transport, d).ttl(Duration.ofSeconds(2)).listener(failures)
                            .build()) {
                tls.rotate(); // etcd's certificates and trust move to a new CA; the client keeps the old one
                restart(etcd);
                EtcdTlsException e = refused(d, Reason.UNTRUSTED_SERVER_CERTIFICATE);
                assertTrue(e.getMessage().contains(ca.toString()), "names the CA file: " + e.getMessage());
                // the membership's lease runs out (it cannot be renewed), and its new publication says why
                EtcdTlsException told = awaitPublishFailure(failures, Reason.UNTRUSTED_SERVER_CERTIFICATE);
                assertTrue(told.getMessage().contains(ca.toString()), told.getMessage());
                assertTrue(m.epoch() > 0);
            }
        }
    }
}
