package io.blockxfer.tck.process;

import java.nio.file.Path;
import java.time.Instant;
import javax.net.ssl.SSLContext;

/**
 * A TLS cluster's files: a throwaway CA ({@link #ca()}), each member's certificate (for
 * clients and peers, with SANs 127.0.0.1 and localhost), the file of CAs the members trust
 * for clients and peers ({@link #serverTrustFile()}), a file with the CA for clients to trust
 * ({@link #caFile()}), and a client certificate without a CN for the cluster's own calls. The
 * members read the files when they start: {@link #rotate()} renews them all with a new CA, and
 * {@link EtcdCluster#restart} makes a member use them.
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
public final class EtcdTlsFiles {
    private final Path dir;
    private final int size;
    private TestCertificates.Ca ca;
    private SSLContext adminContext;

    EtcdTlsFiles(Path dir, int size) {
        this.dir = dir;
        this.size = size;
        this.ca = TestCertificates.ca("etcd-test-ca");
        this.adminContext = write(ca);
    }

    private SSLContext write(TestCertificates.Ca authority) {
        for (int i = 0; i < size; i++) {
            TestCertificates.Issued server = authority.server("etcd-m" + (i + 1));
            server.writeCertificate(serverCertFile(i));
            server.writeKey(serverKeyFile(i), TestCertificates.KeyFormat.PKCS8);
        }
        authority.write(serverTrustFile());
        authority.write(caFile());
        // no CN: etcd's JSON gateway refuses a client certificate with one once authentication is on
        return authority.client("", TestCertificates.KeyKind.EC).sslContext(authority.certificate());
    }

    /** The CA of the members' certificates, and the one they trust for clients. */
    public synchronized TestCertificates.Ca ca() {
        return ca;
    }

    /** A PEM file with the CA's certificate, for clients to trust (etcdctl's {@code --cacert}). */
    public Path caFile() {
        return dir.resolve("ca.pem");
    }

    /** The members' {@code --trusted-ca-file} (and {@code --peer-trusted-ca-file}). */
    public Path serverTrustFile() {
        return dir.resolve("server-trust.pem");
    }

    /** Member {@code i}'s {@code --cert-file} (and {@code --peer-cert-file}). */
    public Path serverCertFile(int i) {
        return dir.resolve("m" + (i + 1) + ".pem");
    }

    /** Member {@code i}'s {@code --key-file} (and {@code --peer-key-file}). */
    public Path serverKeyFile(int i) {
        return dir.resolve("m" + (i + 1) + "-key.pem");
    }

    /** A client certificate of the CA for user {@code cn}, valid now for a day. */
    public synchronized TestCertificates.Issued client(String cn, TestCertificates.KeyKind kind) {
        return ca.client(cn, kind);
    }

    /**
     * A new CA: every member's certificate, the members' trust and {@link #caFile()} are
     * rewritten with it (in place); members use it once restarted. Returns the new CA.
     */
    public synchronized TestCertificates.Ca rotate() {
        TestCertificates.Ca fresh = TestCertificates.ca("etcd-test-ca-" + Instant.now().toEpochMilli());
        adminContext = write(fresh);
        ca = fresh;
        return fresh;
    }

    synchronized SSLContext adminContext() {
        return adminContext;
    }
}
