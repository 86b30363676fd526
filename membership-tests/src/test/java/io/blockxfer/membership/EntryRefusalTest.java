package io.blockxfer.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.directory.MemberEntry;
import io.blockxfer.directory.Membership;
import io.blockxfer.directory.MembershipListener;
import io.blockxfer.directory.Refusal;
import io.blockxfer.directory.etcd.EtcdDirectory;
import io.blockxfer.directory.etcd.EtcdEndpoints;
import io.blockxfer.tck.BlockPattern;
import io.blockxfer.tck.directory.RecordingTransport;
import io.blockxfer.tck.process.EtcdCluster;
import io.blockxfer.tck.process.UcxShmFiles;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Entries written straight into a real etcd (plain puts, no lease) under the prefix of a
 * deployment whose members are real transports bound by {@link Membership}s with a key ring: a
 * wrong MAC, an unsigned descriptor inside a signed entry, an unsigned entry, the last entry of a
 * member that left replayed (refused as off its lease), garbage bytes, a 1 MiB value, a key below
 * the prefix that names no member, and a key outside the prefix. Each delivered one is refused once, with its
 * {@link Refusal.Reason}; the key outside the prefix is never delivered at all. Nothing of them
 * reaches the transport (no registration or removal is asked of it, so nothing reaches its native
 * library): its peers stay what they were, and transfers to the live peer go on. The bogus entries
 * carry the descriptor of a live transport, so that any of them accepted would have been a peer
 * the transport could reach.
 *
 * <p>Then what a writer of the prefix without the key can do to live members
 * ({@link #aWriterWithoutTheKeyChangesNothingOnUcx}): a member's own bytes put back without its
 * lease (it restores them, and its goodbye still removes it; written back after it left, its
 * entry is refused by a member that starts later), 400 overwrites of one member's key (restored
 * at a bounded rate, no transfer fails, nothing re-registered), and 5,000 junk keys (every
 * refusal counted, a few log lines).
 *
 * <p>The transports run in this JVM; prints {@code entry refusals:} with the time until every
 * refusal was reported, and {@code prefix writer:} with what the attacks cost.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class EntryRefusalTest {

    private static final long BLOCK_LENGTH = 64 * 1024;
    private static final Duration WAIT = Duration.ofSeconds(30);

    private static EtcdCluster cluster;

    @BeforeAll
    static void startEtcd() {
        cluster = EtcdCluster.start(1);
    }

    @AfterAll
    static void stopEtcd() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void entriesWrittenStraightIntoEtcdAreRefusedAndReachNoUcxTransport() throws Exception {
        refusals("ucx");
    }

    // full tier: the same with NIXL transports; the refusals are the membership's and do not depend on
    // the backend, which the fast tier's UCX run already puts behind them
    @Tag("full")
    @Test
    void entriesWrittenStraightIntoEtcdAreRefusedAndReachNoNixlTransport() throws Exception {
        refusals("nixl");
    }

    /** What a membership told its listener: refusals, and its peers' changes as lines. */
    private static final class Log implements MembershipListener {
        final List<Refusal> refusals = new CopyOnWriteArrayList<>();
        final List<String> changes = new CopyOnWriteArrayList<>();

        @Override
        public void refused(Refusal refusal) {
            refusals.add(refusal);
        }

        @Override
        public void memberAdded(String id, long epoch) {
            changes.add("added " + id + " " + epoch);
        }

        @Override
        public void memberUpdated(String id, long epoch) {
            changes.add("updated " + id + " " + epoch);
        }

        @Override
        public void memberRemoved(String id, long epoch) {
            changes.add("removed " + id + " " + epoch);
        }

        final List<String> own = new CopyOnWriteArrayList<>();

        @Override
        public void published(String id, long epoch) {
            own.add("published " + epoch);
        }

        @Override
        public void leaseLost(String id, long epoch, String reason) {
            own.add("lost " + epoch);
        }

        @Override
        public void entryRestored(String id, long epoch, String reason) {
            own.add("restored " + epoch);
        }

        @Override
        public void memberReRegistered(String id, long epoch) {
            changes.add("reregistered " + id + " " + epoch);
        }

        long count(String key, Refusal.Reason reason) {
            return refusals.stream().filter(r -> r.key().equals(key) && r.reason() == reason).count();
        }

        long own(String prefix) {
            return own.stream().filter(l -> l.startsWith(prefix)).count();
        }
    }

    private void refusals(String backend) throws Exception {
        MemberDeployment.requireBackend(backend);
        String prefix = "/blockxfer-refusals/" + backend + "-" + ProcessHandle.current().pid() + "/";
        DeploymentKeyRing ring = ring("faults");
        Deque<AutoCloseable> toClose = new ArrayDeque<>();
        try (Client etcd = Client.builder().endpoints(EtcdEndpoints.parse(cluster.endpoints()).uris()).build()) {
            RecordingTransport a = new RecordingTransport(open(backend, "a", ring, toClose));
            Log log = new Log();
            Membership ma = join(a, prefix, ring, log, toClose);
            DataTransport b = open(backend, "b", ring, toClose);
            Membership mb = join(b, prefix, ring, new Log(), toClose);
            DataTransport c = open(backend, "c", ring, toClose);
            Membership mc = join(c, prefix, ring, new Log(), toClose);
            await(() -> ma.members().equals(Map.of("b", mb.epoch(), "c", mc.epoch())), () -> "a did not add b and c: "
                    + log.changes);
            // c leaves (goodbye); its last entry is kept for a replay
            long cEpoch = mc.epoch();
            byte[] cLast = get(etcd, prefix + "c");
            mc.close();
            await(() -> ma.members().equals(Map.of("b", mb.epoch())) && log.changes.contains("removed c " + cEpoch),
                    () -> "a did not remove c: " + log.changes);
            List<String> callsBefore = a.calls();
            List<String> changesBefore = List.copyOf(log.changes);

            PeerDescriptor live = c.localDescriptor(); // signed with the ring, of a transport that still runs
            DeploymentKeyRing forged = ring(ring.signingKeyId());
            byte[] mebibyte = Arrays.copyOf(MemberEntry.of("x5", 5, live).encode(ring), 1 << 20);
            byte[] garbage = {'g', 'a', 'r', 'b', 'a', 'g', 'e', 0, (byte) 0xff, (byte) 0xfe, 1, 2, 3};
            String outside = prefix.substring(0, prefix.length() - 1) + "-elsewhere/x7";
            Map<String, Refusal.Reason> expected = new LinkedHashMap<>();
            expected.put(prefix + "x1", Refusal.Reason.BAD_MAC);
            expected.put(prefix + "x2", Refusal.Reason.UNSIGNED);
            expected.put(prefix + "x3", Refusal.Reason.UNSIGNED);
            expected.put(prefix + "c", Refusal.Reason.WRONG_LEASE);
            expected.put(prefix + "x4", Refusal.Reason.MALFORMED);
            expected.put(prefix + "x5", Refusal.Reason.OVERSIZED);
            expected.put(prefix + "x6/x", Refusal.Reason.BAD_KEY);
            long start = System.nanoTime();
            put(etcd, outside, MemberEntry.of("x7", 5, live).encode(ring)); // first: written before all the others
            put(etcd, prefix + "x1", MemberEntry.of("x1", 5, live).encode(forged)); // another key under the ring's id
            put(etcd, prefix + "x2", MemberEntry.of("x2", 5, live.unsigned()).encode(ring));
            put(etcd, prefix + "x3", MemberEntry.of("x3", 5, live).encode(null));
            put(etcd, prefix + "c", cLast);
            put(etcd, prefix + "x4", garbage);
            put(etcd, prefix + "x5", mebibyte);
            put(etcd, prefix + "x6/x", MemberEntry.of("x", 5, live).encode(ring));
            await(() -> expected.entrySet().stream().allMatch(e -> log.count(e.getKey(), e.getValue()) > 0),
                    () -> "not every entry was refused with its reason " + expected + "; refusals: " + log.refusals);
            long refusedMillis = (System.nanoTime() - start) / 1_000_000;
            // later reports would follow within the watch's delivery; a member joining now is the barrier
            DataTransport d = open(backend, "d", ring, toClose);
            Membership md = join(d, prefix, ring, new Log(), toClose);
            await(() -> ma.members().equals(Map.of("b", mb.epoch(), "d", md.epoch()))
                    && log.changes.contains("added d " + md.epoch()), () -> "a did not add d: " + log.changes);

            for (Map.Entry<String, Refusal.Reason> e : expected.entrySet()) {
                assertEquals(1, log.refusals.stream().filter(r -> r.key().equals(e.getKey())).count(), e.getKey()
                        + " was not reported once: " + log.refusals);
            }
            Refusal replay = log.refusals.stream().filter(r -> r.key().equals(prefix + "c")).findFirst().orElseThrow();
            assertEquals(cEpoch, replay.epoch(), "the replay's refusal names another epoch: " + replay);
            assertEquals(expected.size(), log.refusals.size(), "refusals of other entries (the key outside the"
                    + " prefix?): " + log.refusals);
            // nothing of them reached the transport: the only registration since is d's
            List<String> calls = a.calls();
            assertEquals(callsBefore, calls.subList(0, callsBefore.size()), "calls: " + calls);
            assertEquals(List.of("add d"), calls.subList(callsBefore.size(), calls.size()), "what reached a's"
                    + " transport after the writes");
            List<String> changes = log.changes.subList(changesBefore.size(), log.changes.size());
            assertEquals(List.of("added d " + md.epoch()), changes, "a's membership changes after the writes");
            for (String id : List.of("x1", "x2", "x3", "c", "x4", "x5", "x6", "x", "x7")) {
                assertEquals(DataTransport.NOT_SUBMITTED, a.writeBlocks(id, new int[] {0}, new int[] {1}),
                        "a's transport holds a peer '" + id + "'");
            }
            assertWriteLands(a, "b", b);
            System.out.println("entry refusals: " + backend + ", " + expected.size() + " entries refused within "
                    + refusedMillis + " ms of the first write (" + String.join(", ", expected.values().stream()
                    .map(Enum::name).toList()) + "), the key outside the prefix never delivered; nothing reached"
                    + " the transport");
        } finally {
            closeAll(toClose);
        }
        // closed, the transports unmapped their shared memory (UCX unlinks its segment files)
        assertEquals(Set.of(), UcxShmFiles.mappedBy(ProcessHandle.current().pid()), "shared memory still mapped");
    }

    @Test
    void aWriterWithoutTheKeyChangesNothingOnUcx() throws Exception {
        prefixWriter("ucx");
    }

    /** Membership's WARNING lines, as java.util.logging gets them from System.Logger. */
    private static final class Warnings extends Handler {
        final List<String> lines = new CopyOnWriteArrayList<>();

        @Override
        public void publish(LogRecord r) {
            if (r.getLevel().intValue() >= Level.WARNING.intValue()) {
                lines.add(r.getMessage());
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }

        long count(String part) {
            return lines.stream().filter(l -> l.contains(part)).count();
        }
    }

    private void prefixWriter(String backend) throws Exception {
        MemberDeployment.requireBackend(backend);
        String prefix = "/blockxfer-writers/" + backend + "-" + ProcessHandle.current().pid() + "/";
        DeploymentKeyRing ring = ring("writers");
        Logger logger = Logger.getLogger("io.blockxfer.directory.Membership");
        Warnings warnings = new Warnings();
        logger.addHandler(warnings);
        Deque<AutoCloseable> toClose = new ArrayDeque<>();
        Duration flap = Membership.DEFAULT_FLAP_INTERVAL;
        try (Client etcd = Client.builder().endpoints(EtcdEndpoints.parse(cluster.endpoints()).uris()).build()) {
            DataTransport a = open(backend, "a", ring, toClose);
            Log la = new Log();
            Membership ma = join(a, prefix, ring, la, flap, toClose);
            DataTransport b = open(backend, "b", ring, toClose);
            Log lb = new Log();
            Membership mb = join(b, prefix, ring, lb, flap, toClose);
            DataTransport c = open(backend, "c", ring, toClose);
            Log lc = new Log();
            Membership mc = join(c, prefix, ring, lc, flap, toClose);
            await(() -> ma.members().keySet().equals(Set.of("b", "c")) && mc.members().containsKey("a")
                    && mb.members().containsKey("a"), () -> "a, b and c did not find each other: " + la.changes);
            long start = System.nanoTime();

            // 1. b's own bytes put back without its lease (etcdctl put): b restores them on its lease
            String bKey = prefix + "b";
            KeyValue bBefore = java.util.Objects.requireNonNull(kv(etcd, bKey), bKey);
            put(etcd, bKey, bBefore.getValue().getBytes());
            await(() -> lb.own("restored " + mb.epoch()) > 0 && leaseOf(etcd, bKey) == bBefore.getLease(),
                    () -> "b did not restore its entry on its lease: " + lb.own);
            await(() -> la.count(bKey, Refusal.Reason.WRONG_LEASE) > 0, () -> "a did not refuse the unleased copy: "
                    + la.refusals);
            MemberDeployment.sleep(flap.toMillis() + 300); // a's held removal of b ends with b's entry back
            assertEquals(List.of(), la.changes.stream().filter(l -> l.contains(" b ")).filter(l -> !l.startsWith(
                    "added")).toList(), "what a did to b");
            assertEquals(List.of("published " + mb.epoch()), lb.own.stream().filter(l -> !l.startsWith("restored"))
                    .toList(), "b's own entry");
            assertWriteLands(a, "b", b);
            long unleasedMillis = (System.nanoTime() - start) / 1_000_000;

            // 2. 400 overwrites of c's key, while a and c transfer to each other
            String cKey = prefix + "c";
            KeyValue cBefore = java.util.Objects.requireNonNull(kv(etcd, cKey), cKey);
            long cEpoch = mc.epoch();
            int[] transfers = new int[2];
            List<String> failures = new CopyOnWriteArrayList<>();
            long stormStart = System.nanoTime();
            Deque<java.util.concurrent.CompletableFuture<?>> inFlight = new ArrayDeque<>();
            for (int i = 0; i < 400; i++) {
                inFlight.add(etcd.getKVClient().put(bytes(cKey), ByteSequence.from(("overwrite " + i)
                        .getBytes(StandardCharsets.US_ASCII))));
                if (inFlight.size() >= 16) {
                    inFlight.poll().get(WAIT.toSeconds(), TimeUnit.SECONDS);
                    transfer(a, "c", transfers, failures);
                    transfer(c, "a", transfers, failures);
                }
            }
            while (!inFlight.isEmpty()) {
                inFlight.poll().get(WAIT.toSeconds(), TimeUnit.SECONDS);
            }
            long stormMillis = (System.nanoTime() - stormStart) / 1_000_000;
            await(() -> {
                KeyValue now = kv(etcd, cKey);
                return now != null && now.getLease() == cBefore.getLease() && now.getValue().equals(cBefore.getValue());
            }, () -> "c did not restore its entry after the storm: " + lc.own);
            long settle = System.nanoTime() + flap.plusMillis(300).toNanos();
            while (System.nanoTime() < settle) {
                transfer(a, "c", transfers, failures);
                transfer(c, "a", transfers, failures);
            }
            long restores = lc.own("restored ");
            long allowed = 2 + Membership.MAX_RESTORES_PER_SECOND * (stormMillis + flap.toMillis() + 1000) / 1000;
            assertTrue(restores >= 1 && restores <= allowed, "c restored its entry " + restores + " times for 400"
                    + " overwrites in " + stormMillis + " ms; at most " + allowed);
            assertEquals(cEpoch, mc.epoch(), "c published anew");
            assertEquals(List.of("published " + cEpoch), lc.own.stream().filter(l -> !l.startsWith("restored"))
                    .toList(), "c's own entry");
            assertEquals(List.of(), lc.changes.stream().filter(l -> !l.startsWith("added")).toList(),
                    "c re-registered or removed its peers");
            assertEquals(List.of(), la.changes.stream().filter(l -> l.contains(" c ") && !l.startsWith("added"))
                    .toList(), "a changed c");
            assertEquals(List.of(), failures, "transfers failed during the storm (" + transfers[0] + " done)");
            assertTrue(warnings.count("'c': its entry under") <= 2 && warnings.count("membership 'a' refused") <= 3,
                    "log lines of the storm: " + warnings.lines);

            // 3. 5,000 junk keys: every refusal told, a few log lines
            long linesBefore = warnings.lines.size();
            long floodStart = System.nanoTime();
            for (int batch = 0; batch < 50; batch++) {
                io.etcd.jetcd.op.Op[] ops = new io.etcd.jetcd.op.Op[100];
                for (int i = 0; i < ops.length; i++) {
                    ops[i] = io.etcd.jetcd.op.Op.put(bytes(prefix + "junk-" + (batch * 100 + i)),
                            ByteSequence.from(new byte[] {'j', (byte) i}), io.etcd.jetcd.options.PutOption.DEFAULT);
                }
                etcd.getKVClient().txn().Then(ops).commit().get(WAIT.toSeconds(), TimeUnit.SECONDS);
            }
            for (Log l : List.of(la, lb, lc)) {
                await(() -> l.refusals.stream().filter(r -> r.key().startsWith(prefix + "junk-")).count() == 5000,
                        () -> "not every junk key was refused: " + l.refusals.size());
            }
            long floodMillis = (System.nanoTime() - floodStart) / 1_000_000;
            List<String> floodLines = List.copyOf(warnings.lines.subList((int) linesBefore,
                    warnings.lines.size()));
            assertTrue(floodLines.size() <= 9, "5,000 junk keys gave " + floodLines.size() + " log lines for three"
                    + " members (at most three each: the first refusal, and summaries of 10 s): " + floodLines);

            // 4. b leaves; its last entry put back without a lease: refused, also by a member that starts after
            byte[] bLast = java.util.Objects.requireNonNull(kv(etcd, bKey), bKey).getValue().getBytes();
            long bEpoch = mb.epoch();
            long goodbye = System.nanoTime();
            mb.close();
            await(() -> !ma.members().containsKey("b") && kv(etcd, bKey) == null, () -> "b's goodbye did not remove"
                    + " it: " + la.changes);
            long goodbyeMillis = (System.nanoTime() - goodbye) / 1_000_000;
            put(etcd, bKey, bLast);
            DataTransport d = open(backend, "d", ring, toClose);
            Log ld = new Log();
            Membership md = join(d, prefix, ring, ld, flap, toClose);
            await(() -> ld.count(bKey, Refusal.Reason.WRONG_LEASE) == 1, () -> "d did not refuse b's entry written"
                    + " back: " + ld.refusals);
            await(() -> md.members().keySet().equals(Set.of("a", "c")), () -> "d's members: " + md.members());
            assertEquals(DataTransport.NOT_SUBMITTED, d.writeBlocks("b", new int[] {0}, new int[] {1}));
            assertTrue(la.changes.contains("removed b " + bEpoch), "a's changes: " + la.changes);
            assertTrue(!ma.members().containsKey("b"), "a took b's copy for b");
            System.out.println("prefix writer: " + backend + ", an unleased copy restored and nothing changed in "
                    + unleasedMillis + " ms; 400 overwrites in " + stormMillis + " ms restored " + restores
                    + " times, " + transfers[0] + " transfers, none failed; 5,000 junk keys refused by 3 members in "
                    + floodMillis + " ms with " + floodLines.size() + " log lines; a goodbye removed in "
                    + goodbyeMillis + " ms and the copy written back after it refused by a late starter");
        } finally {
            logger.removeHandler(warnings);
            closeAll(toClose);
        }
    }

    /** One write from {@code from} to {@code peer}, polled to its end; a failure (or no submit) is recorded. */
    private static void transfer(DataTransport from, String peer, int[] counts, List<String> failures) {
        long id = from.writeBlocks(peer, new int[] {0}, new int[] {1});
        if (id == DataTransport.NOT_SUBMITTED) {
            failures.add(from.agentName() + " -> " + peer + ": not submitted (no peer)");
            return;
        }
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            PollResult r = from.poll(peer);
            if (Arrays.stream(r.failed()).anyMatch(x -> x == id)) {
                failures.add(from.agentName() + " -> " + peer + ": transfer " + id + " failed");
                return;
            }
            if (Arrays.stream(r.done()).anyMatch(x -> x == id)) {
                counts[0]++;
                return;
            }
            Thread.onSpinWait();
        }
        failures.add(from.agentName() + " -> " + peer + ": transfer " + id + " did not end");
    }

    private static long leaseOf(Client etcd, String key) {
        KeyValue kv = kv(etcd, key);
        return kv == null ? 0 : kv.getLease();
    }

    private static @org.jspecify.annotations.Nullable KeyValue kv(Client etcd, String key) {
        try {
            List<KeyValue> kvs = etcd.getKVClient().get(bytes(key)).get(WAIT.toSeconds(), TimeUnit.SECONDS).getKvs();
            return kvs.isEmpty() ? null : kvs.getFirst();
        } catch (Exception e) {
            throw new AssertionError("could not read " + key, e);
        }
    }

    private static DeploymentKeyRing ring(String keyId) {
        byte[] key = new byte[DeploymentKeyRing.MIN_KEY_BYTES];
        new SecureRandom().nextBytes(key);
        return DeploymentKeyRing.of(keyId, key);
    }

    private static DataTransport open(String backend, String agent, DeploymentKeyRing ring,
            Deque<AutoCloseable> toClose) {
        TransportConfig config = TransportConfig.builder(RegionSpec.allocate(4, BLOCK_LENGTH)).agentName(agent)
                .keyRing(ring).build();
        DataTransport t = Transports.select(backend, EntryRefusalTest.class.getClassLoader()).open(config);
        toClose.push(t);
        return t;
    }

    private static Membership join(DataTransport t, String prefix, DeploymentKeyRing ring, Log log,
            Deque<AutoCloseable> toClose) {
        return join(t, prefix, ring, log, Duration.ZERO, toClose);
    }

    private static Membership join(DataTransport t, String prefix, DeploymentKeyRing ring, Log log,
            Duration flapInterval, Deque<AutoCloseable> toClose) {
        // the first call of a JVM's first etcd client loads gRPC, Netty and Vert.x: a long deadline
        EtcdDirectory directory = EtcdDirectory.builder(cluster.endpoints()).prefix(prefix).name(t.agentName())
                .operationTimeout(WAIT).build();
        toClose.push(directory);
        Membership m = Membership.builder(t, directory).keyRing(ring).flapInterval(flapInterval).listener(log)
                .build();
        toClose.push(m);
        return m;
    }

    private static void put(Client etcd, String key, byte[] value) throws Exception {
        etcd.getKVClient().put(bytes(key), ByteSequence.from(value)).get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    private static byte[] get(Client etcd, String key) throws Exception {
        List<KeyValue> kvs = etcd.getKVClient().get(bytes(key)).get(WAIT.toSeconds(), TimeUnit.SECONDS).getKvs();
        assertEquals(1, kvs.size(), "entries under " + key);
        return kvs.getFirst().getValue().getBytes();
    }

    private static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }

    /** Writes a pattern from {@code from}'s block 0 into {@code to}'s block 1 and checks it arrived. */
    private static void assertWriteLands(DataTransport from, String peer, DataTransport to) {
        long seed = BlockPattern.seed(42, 1);
        BlockPattern.fill(from.region().block(0), seed);
        long id = from.writeBlocks(peer, new int[] {0}, new int[] {1});
        assertTrue(id != DataTransport.NOT_SUBMITTED, "no transfer to " + peer);
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            PollResult r = from.poll(peer);
            if (Arrays.stream(r.failed()).anyMatch(x -> x == id)) {
                throw new AssertionError("the write to " + peer + " failed");
            }
            if (Arrays.stream(r.done()).anyMatch(x -> x == id)) {
                break;
            }
            assertTrue(System.nanoTime() < deadline, "the write to " + peer + " did not end within " + WAIT);
            MemberDeployment.sleep(2);
        }
        assertEquals(-1, BlockPattern.firstMismatch(to.region().block(1), seed), "the bytes that arrived at " + peer);
    }

    private static void await(BooleanSupplier condition, Supplier<String> failure) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(failure.get() + " (within " + WAIT.toSeconds() + " s)");
            }
            MemberDeployment.sleep(20);
        }
    }

    private static void closeAll(Deque<AutoCloseable> toClose) throws Exception {
        Exception first = null;
        while (!toClose.isEmpty()) {
            try {
                toClose.pop().close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
