package io.blockxfer.multihost;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.jspecify.annotations.Nullable;

/**
 * One etcd member that a peer program runs beside its transport: the container's {@code etcd}
 * binary (Debian's {@code etcd-server}) as a child process, known by its pid, with its data in a
 * temporary folder, its client URL {@code http://ADDRESS:2379} and peer URL
 * {@code http://ADDRESS:2380} on the container's own address; with a {@link Tls} folder, both are
 * {@code https://} with mutual TLS between clients and members and between members, as a
 * production etcd runs. Its output goes to the peer's
 * (warnings only). It runs with {@code --pre-vote} (off by default in 3.4), as a deployment should:
 * a member cut off from the others then does not force an election, which resets every lease, when
 * it comes back. {@link #close()} kills it and removes its data.
 *
 * <p><b>Thread safety:</b> thread-safe; {@link #close()} is idempotent.
 */
final class EtcdMember implements AutoCloseable {

    static final int CLIENT_PORT = 2379;
    static final int PEER_PORT = 2380;
    private static final Pattern MEMBER_ID = Pattern.compile("\"member_id\":\"([0-9]+)\"");
    private static final Pattern LEADER = Pattern.compile("\"leader\":\"([0-9]+)\"");

    private final Process process;
    private final Path dataDir;
    private final String clientUrl;
    private final HttpClient http;

    private EtcdMember(Process process, Path dataDir, String clientUrl, HttpClient http) {
        this.process = process;
        this.dataDir = dataDir;
        this.clientUrl = clientUrl;
        this.http = http;
    }

    /**
     * A folder of PEM files the test wrote for this member: the CA ({@code ca.pem}) and the member's
     * certificate ({@code member.pem}, for its address, good for servers and clients) with its PKCS#8
     * key ({@code member-key.pem}); etcd serves and dials its peers with them, and the member's own
     * directory presents them as its client certificate.
     */
    record Tls(Path dir) {
        Path ca() {
            return dir.resolve("ca.pem");
        }

        Path certificate() {
            return dir.resolve("member.pem");
        }

        Path key() {
            return dir.resolve("member-key.pem");
        }

        /** etcd's flags for client and peer TLS with client certificates. */
        List<String> etcdFlags() {
            return List.of("--cert-file=" + certificate(), "--key-file=" + key(), "--client-cert-auth",
                    "--trusted-ca-file=" + ca(), "--peer-cert-file=" + certificate(), "--peer-key-file=" + key(),
                    "--peer-client-cert-auth", "--peer-trusted-ca-file=" + ca());
        }

        /** A JDK TLS context that presents the member's certificate and trusts the CA only. */
        SSLContext sslContext() throws IOException {
            try {
                CertificateFactory x509 = CertificateFactory.getInstance("X.509");
                X509Certificate cert;
                X509Certificate caCert;
                try (InputStream in = Files.newInputStream(certificate()); InputStream c = Files.newInputStream(ca())) {
                    cert = (X509Certificate) x509.generateCertificate(in);
                    caCert = (X509Certificate) x509.generateCertificate(c);
                }
                String pem = Files.readString(key()).replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
                PrivateKey key = KeyFactory.getInstance(cert.getPublicKey().getAlgorithm())
                        .generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(pem)));
                KeyStore keys = KeyStore.getInstance("PKCS12");
                keys.load(null, null);
                keys.setKeyEntry("member", key, new char[0], new X509Certificate[] {cert});
                keys.setCertificateEntry("ca", caCert);
                KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                kmf.init(keys, new char[0]);
                KeyStore trust = KeyStore.getInstance("PKCS12");
                trust.load(null, null);
                trust.setCertificateEntry("ca", caCert);
                TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                tmf.init(trust);
                SSLContext ctx = SSLContext.getInstance("TLS");
                ctx.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
                return ctx;
            } catch (GeneralSecurityException e) {
                throw new IOException("the member's TLS files in " + dir + ": " + e, e);
            }
        }
    }

    /**
     * Starts {@code binary} as member {@code name} of a new cluster.
     *
     * @param address this container's address, for both URLs
     * @param initialCluster every member's {@code name=http://address:2380}, comma-separated
     * @param token the cluster's {@code --initial-cluster-token}, unique per cluster
     * @param tls the member's TLS files, or null for plain text
     */
    static EtcdMember start(String binary, String name, String address, String initialCluster, String token,
            @Nullable Tls tls) throws IOException {
        if (!Files.isExecutable(Path.of(binary))) {
            throw new IllegalStateException("no " + binary + " in this peer's image: build the image again with"
                    + " scripts/testhosts-image, which includes Debian's etcd-server");
        }
        Path dataDir = Files.createTempDirectory("etcd-" + name + "-");
        String scheme = tls == null ? "http" : "https";
        String client = scheme + "://" + address + ":" + CLIENT_PORT;
        String peer = scheme + "://" + address + ":" + PEER_PORT;
        List<String> args = new ArrayList<>(List.of(binary, "--name=" + name, "--data-dir=" + dataDir.resolve("data"),
                "--listen-client-urls=" + client, "--advertise-client-urls=" + client,
                "--listen-peer-urls=" + peer, "--initial-advertise-peer-urls=" + peer,
                "--initial-cluster=" + initialCluster, "--initial-cluster-token=" + token,
                "--initial-cluster-state=new", "--pre-vote=true", "--logger=zap", "--log-outputs=stderr", "--log-level=warn"));
        HttpClient.Builder http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2));
        if (tls != null) {
            args.addAll(tls.etcdFlags());
            http.sslContext(tls.sslContext());
        }
        Process p = new ProcessBuilder(args).inheritIO().start();
        return new EtcdMember(p, dataDir, client, http.build());
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /**
     * {@code POST /v3/maintenance/status} of this member: {@code id=<member id> leader=<leader's id>}
     * (leader {@code 0} while it knows none), or {@code id=? leader=? error=<cause>} when it does not
     * answer within 2 s.
     */
    String status() {
        try {
            HttpRequest req = HttpRequest.newBuilder(URI.create(clientUrl + "/v3/maintenance/status"))
                    .timeout(Duration.ofSeconds(2)).POST(HttpRequest.BodyPublishers.ofString("{}")).build();
            String body = http.send(req, HttpResponse.BodyHandlers.ofString()).body();
            return "id=" + group(MEMBER_ID.matcher(body)) + " leader=" + group(LEADER.matcher(body));
        } catch (IOException e) {
            return "id=? leader=? error=" + String.valueOf(e).replace(' ', '_');
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "id=? leader=? error=interrupted";
        }
    }

    private static String group(Matcher m) {
        return m.find() ? m.group(1) : "0";
    }

    @Override
    public synchronized void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try (Stream<Path> files = Files.walk(dataDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // the container's file system goes with the container
        }
    }
}
