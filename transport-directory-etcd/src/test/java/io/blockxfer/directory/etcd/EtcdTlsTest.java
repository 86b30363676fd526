package io.blockxfer.directory.etcd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.directory.DirectoryUnavailableException;
import io.blockxfer.directory.DirectoryWatch;
import io.blockxfer.directory.Publication;
import io.blockxfer.directory.PublicationListener;
import io.blockxfer.directory.etcd.EtcdTlsException.Reason;
import io.blockxfer.tck.process.EtcdCluster;
import io.blockxfer.tck.process.EtcdTlsFiles;
import io.blockxfer.tck.process.TestCertificates;
import io.blockxfer.tck.process.TestCertificates.KeyFormat;
import io.blockxfer.tck.process.TestCertificates.KeyKind;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.function.Executable;

/**
 * TLS to a real etcd with client and peer TLS, {@code --client-cert-auth} and authentication
 * ({@link EtcdCluster.Builder#tls()}, one member for the class), with certificates made by the
 * test ({@link TestCertificates}): every key kind and format etcd's tooling writes connects; a CA
 * bundle of several certificates is read; and each way TLS goes wrong is refused by
 * {@link EtcdDirectory.Builder#build()} with its {@link EtcdTlsException.Reason}, a message naming
 * the file and the endpoint, and within the operation timeout. Faults of etcd's own certificate
 * (expired, not yet valid, for another host) and a plain-text endpoint are played by a small TLS
 * (or plain) server of the test's.
 */
class EtcdTlsTest {

    private static final String PREFIX = "/tls-a/";
    private static final String USER = "tenant-a";
    private static final char[] PASSWORD = "tenant-a-password".toCharArray();
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private static @Nullable EtcdCluster etcd;

    @BeforeAll
    static void startEtcd() {
        etcd = EtcdCluster.builder(1).tls().auth().start();
        etcd.addUser(USER, new String(PASSWORD), PREFIX);
    }

    @AfterAll
    static void stopEtcd() {
        if (etcd != null) {
            etcd.close();
        }
    }

    private static EtcdCluster etcd() {
        assertTrue(etcd != null, "etcd runs");
        return etcd;
    }

    private static EtcdTlsFiles tls() {
        EtcdTlsFiles tls = etcd().tls();
        assertTrue(tls != null, "etcd runs with TLS");
        return tls;
    }

    private static String endpoint() {
        return "127.0.0.1:" + etcd().clientPort(0);
    }

    /** A builder for the tenant's prefix, trusting the cluster's CA. */
    private static EtcdDirectory.Builder tenant() {
        return EtcdDirectory.builder(etcd().endpoints()).prefix(PREFIX).operationTimeout(TIMEOUT)
                .trustedCa(tls().caFile()).user(USER).password(PASSWORD);
    }

    /** A client certificate of the cluster's CA, written in {@code dir} as {@code name}.pem and {@code name}-key.pem. */
    private static Path[] client(Path dir, String name, KeyKind kind, KeyFormat format) {
        TestCertificates.Issued issued = tls().client(USER, kind);
        return new Path[] {issued.writeCertificate(dir.resolve(name + ".pem")),
            issued.writeKey(dir.resolve(name + "-key.pem"), format)};
    }

    /** Publishes an entry and sees it in a watch: the directory works. */
    private static void works(EtcdDirectory d, String member) throws Exception {
        Recorder r = new Recorder();
        try (Publication p = d.publish(member, "v".getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(5),
                PublicationListener.NONE); DirectoryWatch _ = d.watch(r)) {
            r.awaitView(v -> v.containsKey(PREFIX + member), Duration.ofSeconds(5), member + " in the view");
            assertFalse(p.isLost());
        }
    }

    /** Runs {@code build}, which must fail with {@code reason} within the operation timeout; returns the failure. */
    private static EtcdTlsException refused(Reason reason, Executable build) {
        long start = System.nanoTime();
        EtcdTlsException e = assertThrows(EtcdTlsException.class, build);
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertEquals(reason, e.reason(), e.getMessage());
        assertTrue(millis < TIMEOUT.toMillis() + 1000, "refused after " + millis + " ms: " + e.getMessage());
        return e;
    }

    @Test
    void everyKeyKindAndFormatEtcdsToolingWritesConnects(@TempDir Path dir) throws Exception {
        record Case(KeyKind kind, KeyFormat format, String header) {
        }
        for (Case c : List.of(new Case(KeyKind.RSA, KeyFormat.TRADITIONAL, "-----BEGIN RSA PRIVATE KEY-----"),
                new Case(KeyKind.RSA, KeyFormat.PKCS8, "-----BEGIN PRIVATE KEY-----"),
                new Case(KeyKind.EC, KeyFormat.TRADITIONAL, "-----BEGIN EC PRIVATE KEY-----"),
                new Case(KeyKind.EC, KeyFormat.PKCS8, "-----BEGIN PRIVATE KEY-----"))) {
            String name = c.kind + "-" + c.format;
            Path[] files = client(dir, name, c.kind, c.format);
            assertTrue(Files.readString(files[1]).startsWith(c.header), name + ": " + Files.readString(files[1]));
            try (EtcdDirectory d = tenant().clientCertificate(files[0], files[1]).build()) {
                works(d, name.toLowerCase(java.util.Locale.ROOT));
            }
        }
    }

    @Test
    void aCaBundleOfSeveralCertificatesAndACertificateAsTheUserWithoutPassword(@TempDir Path dir) throws Exception {
        Path bundle = TestCertificates.writeBundle(dir.resolve("bundle.pem"), TestCertificates.ca("other-ca"),
                tls().ca(), TestCertificates.ca("third-ca"));
        Path[] files = client(dir, "client", KeyKind.EC, KeyFormat.PKCS8);
        // no password: etcd takes the certificate's CN (tenant-a) as the user; etcd:// with TLS settings is TLS
        try (EtcdDirectory d = EtcdDirectory.builder("etcd://" + endpoint()).prefix(PREFIX).operationTimeout(TIMEOUT)
                .trustedCa(bundle).clientCertificate(files[0], files[1]).build()) {
            works(d, "by-cn");
        }
    }

    @Test
    void noClientCertificateIsRefusedNamingTheEndpoint() {
        EtcdTlsException e = refused(Reason.NO_CLIENT_CERTIFICATE, () -> tenant().build());
        assertTrue(e.getMessage().contains(endpoint()), e.getMessage());
        assertTrue(e.getMessage().contains("--client-cert-auth"), e.getMessage());
        assertEquals(endpoint(), e.endpoint());
    }

    @Test
    void aClientCertificateOfAnotherCaIsRefusedByEtcdNamingTheFileAndTheEndpoint(@TempDir Path dir) {
        TestCertificates.Issued foreign = TestCertificates.ca("foreign-ca").client(USER, KeyKind.EC);
        Path cert = foreign.writeCertificate(dir.resolve("foreign.pem"));
        Path key = foreign.writeKey(dir.resolve("foreign-key.pem"), KeyFormat.PKCS8);
        EtcdTlsException e = refused(Reason.CLIENT_CERTIFICATE_REJECTED,
                () -> tenant().clientCertificate(cert, key).build());
        assertTrue(e.getMessage().contains(cert.toString()), e.getMessage());
        assertTrue(e.getMessage().contains(endpoint()), e.getMessage());
    }

    @Test
    void anUntrustedServerIsRefusedNamingTheCaFileAndTheEndpoint(@TempDir Path dir) {
        Path otherCa = TestCertificates.ca("not-etcds-ca").write(dir.resolve("other-ca.pem"));
        Path[] files = client(dir, "client", KeyKind.EC, KeyFormat.PKCS8);
        EtcdTlsException e = refused(Reason.UNTRUSTED_SERVER_CERTIFICATE,
                () -> tenant().trustedCa(otherCa).clientCertificate(files[0], files[1]).build());
        assertTrue(e.getMessage().contains(otherCa.toString()), e.getMessage());
        assertTrue(e.getMessage().contains(endpoint()), e.getMessage());
    }

    @Test
    void skippingVerificationConnectsToAnUntrustedServerAndWarnsLoudly(@TempDir Path dir) throws Exception {
        Path otherCa = TestCertificates.ca("not-etcds-ca").write(dir.resolve("other-ca.pem"));
        Path[] files = client(dir, "client", KeyKind.EC, KeyFormat.PKCS8);
        List<String> warnings;
        try (LoggedLines logged = LoggedLines.of(EtcdDirectory.class)) {
            try (EtcdDirectory d = tenant().trustedCa(otherCa).insecureSkipTlsVerify(true)
                    .clientCertificate(files[0], files[1]).build()) {
                works(d, "insecure");
            }
            warnings = logged.lines();
        }
        assertTrue(warnings.stream().anyMatch(w -> w.startsWith("WARNING TLS VERIFICATION IS OFF")), warnings.toString());
    }

    @Test
    void aClientCertificateOutOfItsValidityIsRefusedBeforeConnecting(@TempDir Path dir) {
        Instant now = Instant.now();
        TestCertificates.Issued expired = tls().ca().issue(USER, KeyKind.RSA, List.of(), List.of(),
                now.minus(Duration.ofDays(2)), now.minus(Duration.ofDays(1)));
        Path cert = expired.writeCertificate(dir.resolve("expired.pem"));
        Path key = expired.writeKey(dir.resolve("expired-key.pem"), KeyFormat.TRADITIONAL);
        EtcdTlsException e = refused(Reason.CLIENT_CERTIFICATE_EXPIRED, () -> tenant().clientCertificate(cert, key)
                .build());
        assertTrue(e.getMessage().contains(cert.toString()) && e.getMessage().contains("expired"), e.getMessage());
        TestCertificates.Issued future = tls().ca().issue(USER, KeyKind.EC, List.of(), List.of(),
                now.plus(Duration.ofDays(1)), now.plus(Duration.ofDays(2)));
        Path futureCert = future.writeCertificate(dir.resolve("future.pem"));
        Path futureKey = future.writeKey(dir.resolve("future-key.pem"), KeyFormat.TRADITIONAL);
        e = refused(Reason.CLIENT_CERTIFICATE_NOT_YET_VALID, () -> tenant().clientCertificate(futureCert, futureKey)
                .build());
        assertTrue(e.getMessage().contains(futureCert.toString()), e.getMessage());
    }

    @Test
    void filesThatCannotBeUsedAreRefusedNamingThem(@TempDir Path dir) throws IOException {
        Path[] good = client(dir, "good", KeyKind.EC, KeyFormat.TRADITIONAL);
        Path[] other = client(dir, "other", KeyKind.EC, KeyFormat.TRADITIONAL);
        Path missing = dir.resolve("missing.pem");
        Path garbage = Files.writeString(dir.resolve("garbage.pem"), """
                -----BEGIN CERTIFICATE-----
                not base64!
                -----END CERTIFICATE-----
                """);
        Path empty = Files.writeString(dir.resolve("empty.pem"), "");
        Path[][] cases = {{missing, good[0], good[1]}, {tls().caFile(), missing, good[1]},
            {tls().caFile(), good[0], missing}, {garbage, good[0], good[1]}, {tls().caFile(), garbage, good[1]},
            {tls().caFile(), good[0], empty}, {tls().caFile(), good[0], other[1]}, {tls().caFile(), good[1], good[0]}};
        for (Path[] c : cases) {
            EtcdTlsException e = refused(Reason.BAD_FILE, () -> tenant().trustedCa(c[0]).clientCertificate(c[1], c[2])
                    .build());
            Path named = !c[0].equals(tls().caFile()) ? c[0] : c[1].equals(good[0]) ? c[2] : c[1];
            assertTrue(e.getMessage().contains(named.toString()), named + ": " + e.getMessage());
        }
    }

    @Test
    void builtWhileEtcdCannotBeReachedItChecksAtTheFirstCall() {
        String nowhere = "https://127.0.0.1:" + EtcdCluster.freePorts(1).getFirst();
        long start = System.nanoTime();
        try (EtcdDirectory d = EtcdDirectory.builder(nowhere).prefix(PREFIX).operationTimeout(Duration.ofSeconds(2))
                .trustedCa(tls().caFile()).user(USER).password(PASSWORD).build()) {
            assertTrue((System.nanoTime() - start) / 1_000_000 < 2000, "built at once: nothing listens");
            DirectoryUnavailableException e = assertThrows(DirectoryUnavailableException.class,
                    () -> d.publish("m", new byte[1], Duration.ofSeconds(5), PublicationListener.NONE));
            assertTrue(e.getMessage().contains(nowhere), e.getMessage());
        }
    }

    @Test
    void tlsSettingsWithPlainTextEndpointsAreRefused() {
        String plain = "http://" + endpoint();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> EtcdDirectory.builder(plain)
                .trustedCa(tls().caFile()).build());
        assertTrue(e.getMessage().contains("https://"), e.getMessage());
    }

    /** etcd's own certificate expired, not yet valid, or for another host: played by a TLS server of the test's. */
    @Test
    void faultsOfEtcdsCertificateAreEachTheirReason(@TempDir Path dir) throws Exception {
        TestCertificates.Ca ca = TestCertificates.ca("stub-ca");
        Path caFile = ca.write(dir.resolve("stub-ca.pem"));
        Instant now = Instant.now();
        record Case(Reason reason, TestCertificates.Issued server) {
        }
        for (Case c : List.of(
                new Case(Reason.SERVER_CERTIFICATE_EXPIRED, ca.issue("etcd", KeyKind.EC, List.of("localhost"),
                        List.of("127.0.0.1"), now.minus(Duration.ofDays(2)), now.minus(Duration.ofDays(1)))),
                new Case(Reason.SERVER_CERTIFICATE_NOT_YET_VALID, ca.issue("etcd", KeyKind.EC, List.of("localhost"),
                        List.of("127.0.0.1"), now.plus(Duration.ofDays(1)), now.plus(Duration.ofDays(2)))),
                new Case(Reason.HOST_MISMATCH, ca.issue("etcd", KeyKind.RSA, List.of("etcd.example"), List.of(),
                        now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(1)))))) {
            try (StubServer stub = StubServer.tls(c.server.sslContext())) {
                String at = "127.0.0.1:" + stub.port();
                EtcdTlsException e = refused(c.reason, () -> EtcdDirectory.builder("https://" + at).prefix(PREFIX)
                        .operationTimeout(TIMEOUT).trustedCa(caFile).build());
                assertTrue(e.getMessage().contains(at), e.getMessage());
                assertEquals(at, e.endpoint());
            }
        }
    }

    @Test
    void aPlainTextEndpointDialedWithTlsIsRefused() throws Exception {
        try (StubServer stub = StubServer.plain()) {
            String at = "127.0.0.1:" + stub.port();
            EtcdTlsException e = refused(Reason.NOT_TLS, () -> EtcdDirectory.builder("https://" + at).prefix(PREFIX)
                    .operationTimeout(TIMEOUT).trustedCa(tls().caFile()).build());
            assertTrue(e.getMessage().contains(at), e.getMessage());
        }
    }

    @Test
    void aServerThatEndsTheHandshakeWithAnAlertIsAFailedHandshakeNamingTheAlert() throws Exception {
        // as a TLS terminator in front of etcd that speaks none of the client's TLS versions answers
        try (StubServer stub = StubServer.alerting()) {
            String at = "127.0.0.1:" + stub.port();
            EtcdTlsException e = refused(Reason.HANDSHAKE_FAILED, () -> EtcdDirectory.builder("https://" + at)
                    .prefix(PREFIX).operationTimeout(TIMEOUT).trustedCa(tls().caFile()).build());
            assertTrue(e.getMessage().contains(at), e.getMessage());
            assertTrue(e.getMessage().contains("protocol_version"), "names the alert: " + e.getMessage());
        }
    }

    /**
     * A server on 127.0.0.1 that makes a TLS handshake with each client and closes, answers HTTP 400
     * in plain text, or answers the client's hello with a fatal TLS alert protocol_version.
     */
    private static final class StubServer implements AutoCloseable {
        private enum Mode { TLS, PLAIN, ALERT }

        /** A TLS record: alert (21), TLS 1.2, 2 bytes, fatal (2), protocol_version (70). */
        private static final byte[] PROTOCOL_VERSION_ALERT = {21, 3, 3, 0, 2, 2, 70};

        private final ServerSocket socket;
        private final Thread thread;

        private StubServer(ServerSocket socket, Mode mode) {
            this.socket = socket;
            this.thread = Thread.ofVirtual().start(() -> {
                while (!socket.isClosed()) {
                    try (Socket s = socket.accept()) {
                        s.setSoTimeout(5000);
                        switch (mode) {
                            case TLS -> ((SSLSocket) s).startHandshake();
                            case PLAIN -> {
                                var unused = s.getInputStream().read(new byte[1024]);
                                OutputStream out = s.getOutputStream();
                                out.write("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n"
                                        .getBytes(StandardCharsets.US_ASCII));
                                out.flush();
                            }
                            case ALERT -> {
                                var unused = s.getInputStream().read(new byte[4096]); // the client's hello
                                s.getOutputStream().write(PROTOCOL_VERSION_ALERT);
                                s.getOutputStream().flush();
                            }
                        }
                    } catch (IOException e) {
                        // the client refused the handshake, or the server is closed
                    }
                }
            });
        }

        static StubServer tls(SSLContext context) throws IOException {
            SSLServerSocket s = (SSLServerSocket) context.getServerSocketFactory().createServerSocket(0, 50,
                    InetAddress.getLoopbackAddress());
            return new StubServer(s, Mode.TLS);
        }

        static StubServer plain() throws IOException {
            return new StubServer(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()), Mode.PLAIN);
        }

        static StubServer alerting() throws IOException {
            return new StubServer(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()), Mode.ALERT);
        }

        int port() {
            return socket.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            socket.close();
            try {
                thread.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
