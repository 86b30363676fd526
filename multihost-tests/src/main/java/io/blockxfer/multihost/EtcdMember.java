package io.blockxfer.multihost;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One etcd member that a peer program runs beside its transport: the container's {@code etcd}
 * binary (Debian's {@code etcd-server}) as a child process, known by its pid, with its data in a
 * temporary folder, its client URL {@code http://ADDRESS:2379} and peer URL
 * {@code http://ADDRESS:2380} on the container's own address. Its output goes to the peer's
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
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private EtcdMember(Process process, Path dataDir, String clientUrl) {
        this.process = process;
        this.dataDir = dataDir;
        this.clientUrl = clientUrl;
    }

    /**
     * Starts {@code binary} as member {@code name} of a new cluster.
     *
     * @param address this container's address, for both URLs
     * @param initialCluster every member's {@code name=http://address:2380}, comma-separated
     * @param token the cluster's {@code --initial-cluster-token}, unique per cluster
     */
    static EtcdMember start(String binary, String name, String address, String initialCluster, String token)
            throws IOException {
        if (!Files.isExecutable(Path.of(binary))) {
            throw new IllegalStateException("no " + binary + " in this peer's image: build the image again with"
                    + " scripts/testhosts-image, which includes Debian's etcd-server");
        }
        Path dataDir = Files.createTempDirectory("etcd-" + name + "-");
        String client = "http://" + address + ":" + CLIENT_PORT;
        String peer = "http://" + address + ":" + PEER_PORT;
        Process p = new ProcessBuilder(List.of(binary, "--name=" + name, "--data-dir=" + dataDir.resolve("data"),
                "--listen-client-urls=" + client, "--advertise-client-urls=" + client,
                "--listen-peer-urls=" + peer, "--initial-advertise-peer-urls=" + peer,
                "--initial-cluster=" + initialCluster, "--initial-cluster-token=" + token,
                "--initial-cluster-state=new", "--pre-vote=true", "--logger=zap", "--log-outputs=stderr", "--log-level=warn"))
                .inheritIO().start();
        return new EtcdMember(p, dataDir, client);
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
