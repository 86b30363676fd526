package io.blockxfer.directory.etcd.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.directory.etcd.EtcdTlsException;
import io.blockxfer.directory.etcd.EtcdTlsException.Reason;
import java.io.IOException;
import java.net.SocketException;
import java.nio.file.Path;
import java.util.Optional;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

/**
 * How a handshake's failure is named: etcd refusing the client's certificate, whether its alert
 * arrived or the client saw a broken pipe or a reset instead (TLS 1.3 checks the certificate after
 * the client's part of the handshake, so the race between the alert and the client's next write is
 * etcd's to win); and an alert of any other kind.
 */
class TlsFailuresTest {

    private static final Path CERT = Path.of("client.pem");

    @Test
    void aConnectionClosedAfterTheClientPresentedItsCertificateIsARejectedCertificate() {
        TlsFailures failures = new TlsFailures(null, CERT);
        long before = System.nanoTime();
        failures.presented("127.0.0.1:2379");
        for (IOException closed : new IOException[] {new SocketException("Broken pipe"),
                new SocketException("Connection reset"), new java.io.EOFException("etcd closed the connection")}) {
            Optional<EtcdTlsException> e = failures.closedAfterPresenting("127.0.0.1:2379", closed, before);
            assertTrue(e.isPresent(), closed.toString());
            assertEquals(Reason.CLIENT_CERTIFICATE_REJECTED, e.get().reason());
            assertTrue(e.get().getMessage().contains("client.pem") && e.get().getMessage().contains("127.0.0.1:2379"),
                    e.get().getMessage());
        }
        assertTrue(failures.closedAfterPresenting(null, new SocketException("Broken pipe"), before).isPresent(),
                "any endpoint the certificate was presented to");
        assertTrue(failures.closedAfterPresenting("127.0.0.1:2379", new SocketException("Broken pipe"),
                System.nanoTime()).isEmpty(), "not presented since");
        assertTrue(failures.closedAfterPresenting("127.0.0.1:2380", new SocketException("Broken pipe"), before)
                .isEmpty(), "not presented to that endpoint");
        assertTrue(failures.closedAfterPresenting("127.0.0.1:2379", new SocketException("No route to host"), before)
                .isEmpty(), "not a closed connection");
        assertTrue(new TlsFailures(null, null).closedAfterPresenting("127.0.0.1:2379",
                new SocketException("Broken pipe"), before).isEmpty(), "no client certificate configured");
    }

    @Test
    void alertsAreNamedByWhatTheyMean() {
        TlsFailures failures = new TlsFailures(null, CERT);
        assertEquals(Reason.CLIENT_CERTIFICATE_REJECTED, failures.classify("e:1", new SSLHandshakeException(
                "Received fatal alert: bad_certificate")).orElseThrow().reason());
        EtcdTlsException other = failures.classify("e:1", new SSLException("Received fatal alert: protocol_version"))
                .orElseThrow();
        assertEquals(Reason.HANDSHAKE_FAILED, other.reason());
        assertTrue(other.getMessage().contains("protocol_version"), other.getMessage());
    }
}
