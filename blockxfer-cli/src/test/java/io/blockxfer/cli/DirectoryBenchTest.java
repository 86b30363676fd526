package io.blockxfer.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.cli.internal.HostPort;
import io.blockxfer.cli.internal.KeyFiles;
import io.blockxfer.cli.internal.remote.BenchDirectory;
import io.blockxfer.cli.internal.remote.ControlProtocol;
import io.blockxfer.cli.internal.remote.ServerEntry;
import io.blockxfer.directory.etcd.EtcdEndpoints;
import io.blockxfer.tck.process.EtcdCluster;
import io.blockxfer.transport.DeploymentKeyRing;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code bench --serve --directory} and {@code bench --connect --directory} against a real
 * one-member etcd ({@link EtcdCluster}: skipped with the cause when there is no etcd binary, failed
 * under {@code -Dblockxfer.etcd.require=true}): a keyed server in a child JVM publishes itself, an
 * initiator finds and measures it, the entry is gone when the server stops (and when its lease
 * expires after a SIGKILL); and each way of finding no usable server is one clear error.
 */
class DirectoryBenchTest {

    private static final Pattern PUBLISHED = Pattern.compile("published as '(\\S+)' in (\\S+) under (\\S+), at"
            + " (\\S+:\\d+); ");
    private static final Duration START = Duration.ofSeconds(60);

    private static @Nullable EtcdCluster etcd;

    @BeforeAll
    static void startEtcd() {
        etcd = EtcdCluster.start(1);
    }

    @AfterAll
    static void stopEtcd() {
        if (etcd != null) {
            etcd.close();
        }
    }

    private static String endpoints() {
        assertTrue(etcd != null, "etcd runs");
        return etcd.endpoints();
    }

    /**
     * A keyed server publishes a signed entry; an initiator with the same key finds it with no
     * address and measures it; once the server stops (SIGTERM) its entry is gone at once. The
     * server printed only its own lines.
     */
    @Test
    void aServerPublishedInEtcdIsFoundMeasuredAndWithdrawn(@TempDir Path dir) throws Exception {
        String backend = NativeBackends.crossProcess().getFirst();
        Path key = KeyFiles.fresh(dir, "deployment.key", "k1");
        String prefix = "/bench-serve/";
        try (CliProcess server = CliProcess.start(List.of(), Map.of("BLOCKXFER_KEY_FILE", key.toString()), "bench",
                "--serve", "--listen", "127.0.0.1:0", "--backend", backend, "--directory", endpoints(), "--prefix",
                prefix, "--target", "hostB")) {
            Matcher published = server.await(PUBLISHED, START);
            assertEquals("hostB", published.group(1), server::output);
            assertTrue(published.group(4).startsWith("127.0.0.1:"), server::output);

            Cli.Result r = Cli.run("bench", "--connect", "--directory", endpoints(), "--prefix", prefix,
                    "--key-file", key.toString(), "--json", "--ops", "write", "--block-sizes", "64K", "--batches", "2",
                    "--window", "2", "--duration", "50ms");
            assertEquals(0, r.exitCode(), r::toString);
            List<JsonNode> rows = JsonTree.rows(r.out());
            assertEquals(List.of(backend), rows.stream().map(n -> n.get("backend").stringValue()).toList(),
                    r::toString);
            assertEquals("remote", rows.getFirst().get("placement").stringValue(), r::toString);
            assertTrue(rows.getFirst().get("gbPerSec").asDouble() > 0, r::toString);
            server.await(Pattern.compile("session 1 .*authenticated with key 'k1'"), START);

            server.signal("TERM");
            assertEquals(143, server.awaitExit(Duration.ofSeconds(30)), server::output);
            // no SLF4J line, no JDK warning about jetcd's sun.misc.Unsafe, no library log (QuietLibrariesTest)
            OwnLines.assertOnlyOwn(server.output());
        }
        Cli.Result after = Cli.run("bench", "--connect", "--directory", endpoints(), "--prefix", prefix);
        assertEquals(1, after.exitCode(), after::toString);
        assertEquals(List.of("blockxfer bench: no bench server is published in " + endpoints() + " under " + prefix
                + " (start one with 'bench --serve --directory ...')"), after.errLines());
    }

    /** No etcd answers at the endpoint: the initiator says which, within the directory's deadline. */
    @Test
    void anUnreachableEndpointIsNamedWithinABoundedTime() {
        assertUnreachableIsNamed(List.of("--connect"));
    }

    /** The same for a server: it says which endpoint, within the deadline, and serves nothing. */
    // full tier: another 5 s operation timeout, the same behaviour as the initiator's
    @Tag("full")
    @Test
    void aServerWithAnUnreachableEndpointSaysSo() {
        assertUnreachableIsNamed(List.of("--serve", "--listen", "127.0.0.1:0"));
    }

    private static void assertUnreachableIsNamed(List<String> side) {
        String nowhere = "127.0.0.1:" + EtcdCluster.freePorts(1).getFirst();
        List<String> args = new ArrayList<>(List.of("bench"));
        args.addAll(side);
        args.addAll(List.of("--directory", "etcd://" + nowhere));
        long start = System.nanoTime();
        Cli.Result r = Cli.run(args.toArray(String[]::new));
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertEquals(1, r.exitCode(), r::toString);
        assertEquals(1, r.errLines().size(), r::toString);
        assertTrue(r.err().contains(nowhere) && r.err().contains("unreachable"), r::toString);
        assertTrue(took.compareTo(BenchDirectory.OPERATION_TIMEOUT.plusSeconds(10)) < 0, () -> side + " took " + took
                + ": " + r);
    }

    /** Several servers and no --target, an unknown --target: each names the servers there are. */
    @Test
    void theServerToMeasureIsChosenByNameWhenThereAreSeveral() {
        String prefix = "/bench-many/";
        BenchDirectory where = BenchDirectory.etcd(endpoints(), prefix);
        try (var a = where.announce(entry("hostA", 7471, false), Optional.empty(), line -> { });
                var b = where.announce(entry("hostB", 7472, false), Optional.empty(), line -> { })) {
            String at = endpoints() + " under " + prefix;
            assertEquals(List.of("hostA", "hostB"), List.of(a.entry().name(), b.entry().name()));
            Cli.Result both = Cli.run("bench", "--connect", "--directory", endpoints(), "--prefix", prefix);
            assertEquals(1, both.exitCode(), both::toString);
            assertEquals(List.of("blockxfer bench: 2 bench servers are published in " + at + ": hostA, hostB; choose"
                    + " one with --target NAME"), both.errLines());

            Cli.Result unknown = Cli.run("bench", "--connect", "--directory", endpoints(), "--prefix", prefix,
                    "--target", "hostC");
            assertEquals(1, unknown.exitCode(), unknown::toString);
            assertEquals(List.of("blockxfer bench: no bench server 'hostC' is published in " + at),
                    unknown.errLines(), "only hostC's key is read");

            // hostA's entry names a port nothing listens on: the connect fails and says where it was found
            Cli.Result chosen = Cli.run("bench", "--connect", "--directory", endpoints(), "--prefix", prefix,
                    "--target", "hostA");
            assertEquals(1, chosen.exitCode(), chosen::toString);
            assertTrue(chosen.err().contains("127.0.0.1:7471") && chosen.err().contains("(bench server 'hostA', found"
                    + " in " + at + ")"), chosen::toString);

            Cli.Result taken = Cli.run("bench", "--serve", "--listen", "127.0.0.1:0", "--directory", endpoints(),
                    "--prefix", prefix, "--target", "hostA");
            assertEquals(1, taken.exitCode(), taken::toString);
            assertTrue(taken.err().contains("a bench server named 'hostA' is already published in " + at),
                    taken::toString);
        }
    }

    /**
     * {@code --connect --target NAME} reads that server's key alone, as a member is resolved on
     * demand: junk under the other keys of the prefix, which a whole listing reports, is never read.
     */
    @Test
    void aTargetIsReadAloneNotListedWithTheRest() throws Exception {
        String prefix = "/bench-target/";
        BenchDirectory where = BenchDirectory.etcd(endpoints(), prefix);
        try (var t = where.announce(entry("hostT", 7475, false), Optional.empty(), line -> { });
                Client client = Client.builder().endpoints(EtcdEndpoints.parse(endpoints()).uris()).build()) {
            for (String junk : List.of("hostT0", "hostS", "zz")) {
                client.getKVClient().put(ByteSequence.from(prefix + junk, StandardCharsets.UTF_8),
                        ByteSequence.from("junk", StandardCharsets.UTF_8)).get(10, TimeUnit.SECONDS);
            }
            BenchDirectory.Listing all = where.list(Optional.empty());
            assertEquals(3, all.refused().size(), all::toString);
            BenchDirectory.Listing alone = where.list(Optional.empty(), "hostT");
            assertEquals(List.of(), alone.refused(), "only hostT's key is read: " + alone);
            assertEquals(List.of("hostT"), alone.servers().stream().map(ServerEntry::name).toList());
            assertEquals(7475, alone.choose("hostT").control().port());
            assertEquals(t.entry(), alone.servers().getFirst());
        }
    }

    /** Under a key ring, an unsigned entry and one signed with another key are refused, with why. */
    @Test
    void entriesThatFailTheKeyRingAreRefused(@TempDir Path dir) throws Exception {
        String prefix = "/bench-ring/";
        Path key = KeyFiles.fresh(dir, "deployment.key", "k1");
        DeploymentKeyRing other = KeyFiles.load(KeyFiles.fresh(dir, "other.key", "k1")).ring();
        BenchDirectory where = BenchDirectory.etcd(endpoints(), prefix);
        try (var unsigned = where.announce(entry("plain", 7471, false), Optional.empty(), line -> { });
                var forged = where.announce(entry("forged", 7472, true), Optional.of(other), line -> { })) {
            String at = endpoints() + " under " + prefix;
            assertEquals(List.of("plain", "forged"), List.of(unsigned.entry().name(), forged.entry().name()));
            Cli.Result plain = Cli.run("bench", "--connect", "--directory", endpoints(), "--prefix", prefix,
                    "--key-file", key.toString(), "--target", "plain");
            assertEquals(1, plain.exitCode(), plain::toString);
            assertEquals(1, plain.errLines().size(), plain::toString);
            assertTrue(plain.err().startsWith("blockxfer bench: the entry of bench server 'plain' in " + at
                    + " is refused: ") && plain.err().contains("unsigned"), plain::toString);

            Cli.Result wrong = Cli.run("bench", "--connect", "--directory", endpoints(), "--prefix", prefix,
                    "--key-file", key.toString(), "--target", "forged");
            assertEquals(1, wrong.exitCode(), wrong::toString);
            assertTrue(wrong.err().startsWith("blockxfer bench: the entry of bench server 'forged' in " + at
                    + " is refused: "), wrong::toString);

            Cli.Result none = Cli.run("bench", "--connect", "--directory", endpoints(), "--prefix", prefix,
                    "--key-file", key.toString(), "--verbose");
            assertEquals(1, none.exitCode(), none::toString);
            assertTrue(none.err().contains("no bench server is published in " + at) && none.err().contains(
                    "(2 entries were refused; --verbose says why)") && none.err().contains("plain: refused: ")
                    && none.err().contains("forged: refused: "), none::toString);
        }
    }

    /**
     * A server whose lease is lost (revoked here, as etcd expires it after an outage longer than
     * the TTL) notices at its next renewal, says so, and publishes its entry again on a new lease.
     */
    @Test
    void aServerWhoseLeaseIsLostPublishesAgain() throws Exception {
        String prefix = "/bench-lost/";
        BenchDirectory where = BenchDirectory.etcd(endpoints(), prefix);
        List<String> log = new CopyOnWriteArrayList<>();
        ByteSequence key = ByteSequence.from(prefix + "hostL", StandardCharsets.UTF_8);
        try (var announced = where.announce(entry("hostL", 7473, false), Optional.empty(), log::add);
                Client client = Client.builder().endpoints(EtcdEndpoints.parse(endpoints()).uris()).build()) {
            assertEquals("hostL", announced.entry().name());
            long lease = client.getKVClient().get(key).get(10, TimeUnit.SECONDS).getKvs().getFirst().getLease();
            client.getLeaseClient().revoke(lease).get(10, TimeUnit.SECONDS);
            long deadline = System.nanoTime() + BenchDirectory.TTL.toNanos();
            while (true) {
                List<KeyValue> kvs = client.getKVClient().get(key).get(10, TimeUnit.SECONDS).getKvs();
                if (!kvs.isEmpty() && kvs.getFirst().getLease() != lease
                        && log.contains("published again in the directory")) {
                    break;
                }
                assertTrue(System.nanoTime() < deadline, () -> "not published again within the TTL: " + log);
                Thread.sleep(100);
            }
            assertTrue(log.getFirst().startsWith("the directory entry's lease was lost ("), log::toString);
            assertEquals(7473, where.list(Optional.empty()).choose("hostL").control().port());
        }
    }

    /** The directory's options are refused where they mean nothing, each with one usage line. */
    @Test
    void misplacedDirectoryOptionsAreUsageErrors() {
        String e = "etcd://127.0.0.1:1";
        Map<List<String>, String> cases = Map.of(
                List.of("bench", "--target", "x"), "--target goes with --directory",
                List.of("bench", "--connect", "h:1", "--directory", e), "--connect h:1 and --directory exclude each"
                        + " other",
                List.of("bench", "--directory", e), "--directory goes with --serve",
                List.of("bench", "--connect"), "--connect needs HOST[:PORT], or --directory ENDPOINTS",
                List.of("bench", "--connect", "--directory", e, "--advertise", "h"), "--advertise is for --serve",
                List.of("bench", "--connect", "--directory", e, "--target", "bad/name"), "--target must be 1-",
                List.of("bench", "--connect", "--directory", "http://h:1,https://h:2"), "--directory: ",
                List.of("bench", "--connect", "--directory", e, "--etcd-cert", "c.pem"), "--etcd-cert goes with"
                        + " --etcd-key",
                List.of("bench", "--etcd-user", "u"), "--etcd-user goes with --directory",
                List.of("bench", "--connect", "--directory", e, "--prefix", "no-slash"), "--prefix: ");
        cases.forEach((args, message) -> {
            Cli.Result r = Cli.run(args.toArray(String[]::new));
            assertEquals(2, r.exitCode(), r::toString);
            assertTrue(r.err().contains(message), () -> args + " -> " + r);
        });
    }

    /** A server killed without a goodbye: its entry goes when its lease expires. */
    // full tier: waits out the server's 10 s lease
    @Tag("full")
    @Test
    void aKilledServersEntryExpiresWithItsLease() throws Exception {
        String backend = NativeBackends.crossProcess().getFirst();
        String prefix = "/bench-killed/";
        try (CliProcess server = CliProcess.start(List.of(), Map.of(), "bench", "--serve", "--listen", "127.0.0.1:0",
                "--backend", backend, "--directory", endpoints(), "--prefix", prefix, "--target", "doomed")) {
            server.await(PUBLISHED, START);
            server.signal("KILL");
            long killed = System.nanoTime();
            server.awaitExit(Duration.ofSeconds(30));
            BenchDirectory where = BenchDirectory.etcd(endpoints(), prefix);
            while (!where.list(Optional.empty()).servers().isEmpty()) {
                Duration waited = Duration.ofNanos(System.nanoTime() - killed);
                assertTrue(waited.compareTo(BenchDirectory.TTL.plusSeconds(3)) < 0, "still listed after " + waited);
                Thread.sleep(200);
            }
        }
    }

    private static ServerEntry entry(String name, int port, boolean authenticated) {
        return new ServerEntry(name, ControlProtocol.VERSION, new HostPort("127.0.0.1", port), name, List.of("ucx"),
                authenticated);
    }
}
