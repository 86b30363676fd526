package io.blockxfer.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.cli.internal.KeyFiles;
import io.blockxfer.tck.process.EtcdCluster;
import io.blockxfer.tck.process.EtcdTlsFiles;
import io.blockxfer.tck.process.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code bench --serve --directory} and {@code bench --connect --directory} through a real etcd
 * with mutual TLS and authentication ({@link EtcdCluster.Builder#tls()} and {@code auth()}, one
 * member): the server is configured by etcdctl's variables alone ({@code ETCDCTL_ENDPOINTS},
 * {@code ETCDCTL_CACERT}, {@code ETCDCTL_CERT}, {@code ETCDCTL_KEY}, {@code ETCDCTL_USER},
 * {@code ETCDCTL_PASSWORD}, with {@code --directory} given no value), the initiator by the
 * {@code --etcd-cacert}, {@code --etcd-cert}, {@code --etcd-key}, {@code --etcd-user} and
 * {@code --etcd-password-file} options; a wrong password is one clear error line.
 */
class SecureDirectoryBenchTest {

    private static final Pattern PUBLISHED = Pattern.compile("published as '(\\S+)' in (\\S+) under (\\S+), at"
            + " (\\S+:\\d+); ");
    private static final Duration START = Duration.ofSeconds(60);
    private static final String PREFIX = "/bench-tls/";

    private static @Nullable EtcdCluster etcd;

    @BeforeAll
    static void startEtcd() {
        etcd = EtcdCluster.builder(1).tls().auth().start();
        etcd.addUser("bench", "bench-pw", PREFIX);
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

    @Test
    void aServerConfiguredByEtcdctlsVariablesIsFoundByAnInitiatorConfiguredByOptions(@TempDir Path dir)
            throws Exception {
        String backend = NativeBackends.crossProcess().getFirst();
        Path key = KeyFiles.fresh(dir, "deployment.key", "k1");
        TestCertificates.Issued serverCert = tls().client("bench", TestCertificates.KeyKind.RSA);
        Path serverPem = serverCert.writeCertificate(dir.resolve("server.pem"));
        Path serverKey = serverCert.writeKey(dir.resolve("server-key.pem"), TestCertificates.KeyFormat.TRADITIONAL);
        TestCertificates.Issued clientCert = tls().client("bench", TestCertificates.KeyKind.EC);
        Path clientPem = clientCert.writeCertificate(dir.resolve("client.pem"));
        Path clientKey = clientCert.writeKey(dir.resolve("client-key.pem"), TestCertificates.KeyFormat.TRADITIONAL);
        Path password = Files.writeString(dir.resolve("password"), "bench-pw\n");
        String endpoints = etcd().endpoints();
        assertTrue(endpoints.startsWith("https://"), endpoints);
        Map<String, String> etcdctl = Map.of("BLOCKXFER_KEY_FILE", key.toString(), "ETCDCTL_ENDPOINTS", endpoints,
                "ETCDCTL_CACERT", tls().caFile().toString(), "ETCDCTL_CERT", serverPem.toString(), "ETCDCTL_KEY",
                serverKey.toString(), "ETCDCTL_USER", "bench", "ETCDCTL_PASSWORD", "bench-pw");
        try (CliProcess server = CliProcess.start(List.of(), etcdctl, "bench", "--serve", "--listen", "127.0.0.1:0",
                "--backend", backend, "--directory", "--prefix", PREFIX, "--target", "hostB")) {
            Matcher published = server.await(PUBLISHED, START);
            assertEquals("hostB", published.group(1), server::output);
            assertEquals(endpoints, published.group(2), server::output);

            Cli.Result r = Cli.run("bench", "--connect", "--directory", endpoints, "--prefix", PREFIX,
                    "--etcd-cacert", tls().caFile().toString(), "--etcd-cert", clientPem.toString(), "--etcd-key",
                    clientKey.toString(), "--etcd-user", "bench", "--etcd-password-file", password.toString(),
                    "--key-file", key.toString(), "--json", "--ops", "write", "--block-sizes", "64K", "--batches", "2",
                    "--window", "2", "--duration", "50ms");
            assertEquals(0, r.exitCode(), r::toString);
            List<JsonNode> rows = JsonTree.rows(r.out());
            assertEquals(List.of(backend), rows.stream().map(n -> n.get("backend").stringValue()).toList(),
                    r::toString);
            assertTrue(rows.getFirst().get("gbPerSec").asDouble() > 0, r::toString);

            Cli.Result wrong = Cli.run("bench", "--connect", "--directory", endpoints, "--prefix", PREFIX,
                    "--etcd-cacert", tls().caFile().toString(), "--etcd-cert", clientPem.toString(), "--etcd-key",
                    clientKey.toString(), "--etcd-user", "bench:wrong");
            assertEquals(1, wrong.exitCode(), wrong::toString);
            assertEquals(1, wrong.errLines().size(), wrong::toString);
            assertTrue(wrong.err().contains("user 'bench'") && wrong.err().contains("authentication failed"),
                    wrong::toString);

            server.signal("TERM");
            assertEquals(143, server.awaitExit(Duration.ofSeconds(30)), server::output);
            OwnLines.assertOnlyOwn(server.output());
        }
    }
}
