package io.blockxfer.directory.etcd.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.tck.process.TestCertificates;
import io.blockxfer.tck.process.TestCertificates.KeyFormat;
import io.blockxfer.tck.process.TestCertificates.KeyKind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The key and trust managers read renewed files at the next handshake, and keep what they had when
 * a renewed file cannot be used (half written, a key of another certificate), until it is whole
 * again (no etcd: what a handshake asks them is asked directly).
 */
class TlsFilesReloadTest {

    @Test
    void aRenewedPairIsTakenAndABrokenOneIsNot(@TempDir Path dir) throws Exception {
        TestCertificates.Ca ca = TestCertificates.ca("reload-ca");
        TestCertificates.Issued first = ca.client("first", KeyKind.EC);
        Path cert = first.writeCertificate(dir.resolve("client.pem"));
        Path key = first.writeKey(dir.resolve("client-key.pem"), KeyFormat.TRADITIONAL);
        ReloadingKeyManager km = new ReloadingKeyManager(cert, key, new TlsFailures(null, cert));
        assertEquals(first.certificate(), km.certificate());

        // half written: the certificate file cut short, then a certificate whose key is not there yet
        String pem = Files.readString(cert);
        Files.writeString(cert, pem.substring(0, pem.length() / 2));
        assertEquals(first.certificate(), km.certificate());
        TestCertificates.Issued second = ca.client("second", KeyKind.RSA);
        second.writeCertificate(cert);
        assertEquals(first.certificate(), km.certificate(), "a certificate without its key is not taken");
        second.writeKey(key, KeyFormat.PKCS8);
        assertEquals(second.certificate(), km.certificate());
        String alias = km.chooseEngineClientAlias(new String[] {"RSA"}, null, null);
        assertEquals(second.certificate(), km.getCertificateChain(alias)[0]);
        assertEquals(second.key(), km.getPrivateKey(alias));
    }

    @Test
    void aRenewedCaBundleIsTakenAndABrokenOneIsNot(@TempDir Path dir) throws Exception {
        TestCertificates.Ca first = TestCertificates.ca("first-ca");
        TestCertificates.Ca second = TestCertificates.ca("second-ca");
        Path file = first.write(dir.resolve("ca.pem"));
        ReloadingTrustManager tm = new ReloadingTrustManager(file, false, new TlsFailures(file, null));
        assertEquals(List.of(first.certificate()), List.of(tm.getAcceptedIssuers()));
        Files.writeString(file, "-----BEGIN CERTIFICATE-----\n");
        assertEquals(List.of(first.certificate()), List.of(tm.getAcceptedIssuers()));
        TestCertificates.writeBundle(file, first, second);
        X509Certificate[] now = tm.getAcceptedIssuers();
        assertEquals(2, now.length);
        assertTrue(List.of(now).contains(second.certificate()));
    }
}
