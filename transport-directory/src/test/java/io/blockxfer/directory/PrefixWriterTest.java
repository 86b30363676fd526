package io.blockxfer.directory;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static io.blockxfer.directory.Writes.assertWriteLands;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.directory.memory.InMemoryCluster;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a writer of the prefix who does not hold the key can do, on the in-memory directory: write
 * a member's own bytes back without its lease, overwrite a member's key again and again, flood the
 * prefix with junk. None of it makes a member churn, lets a departed member live on, or floods the
 * log; and {@link Membership#members()} never lists a member whose registration is being replaced.
 * The same attacks on a real etcd: {@code membership-tests}' {@code EntryRefusalTest}.
 */
class PrefixWriterTest {

    private static final String PREFIX = "/kv/writers/";
    private static final DeploymentKeyRing RING = DeploymentKeyRing.of("k1", MemberEntryTest.key(1));

    private final InMemoryCluster cluster = InMemoryCluster.withManualClock();
    private final ManualTicker ticker = new ManualTicker();
    private final List<AutoCloseable> open = new ArrayList<>();
    private final Logger log = Logger.getLogger("io.blockxfer.directory.Membership");
    private final List<LogRecord> warnings = new CopyOnWriteArrayList<>();
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord r) {
            if (r.getLevel().intValue() >= Level.WARNING.intValue()) {
                warnings.add(r);
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void listen() {
        log.addHandler(handler);
    }

    @AfterEach
    void closeAll() throws Exception {
        log.removeHandler(handler);
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        cluster.close();
    }

    private <T extends AutoCloseable> T keep(T c) {
        open.add(c);
        return c;
    }

    private DataTransport transport(String agent) {
        return keep(Transports.open(TransportConfig.builder(RegionSpec.allocate(8, 256)).transport("loopback")
                .agentName(agent).keyRing(RING).build()));
    }

    private Membership member(DataTransport t, Directory client, Recorder r) {
        return keep(Membership.builder(t, client).keyRing(RING).ttl(Duration.ofSeconds(5)).ticker(ticker).listener(r)
                .build());
    }

    private Membership member(DataTransport t, Recorder r) {
        return member(t, keep(cluster.connect(PREFIX)), r);
    }

    /** Writes a garbage entry under a marker key and waits until {@code r} refused it: all before it was handled. */
    private void sync(Recorder r) throws InterruptedException {
        String key = PREFIX + "marker-" + System.nanoTime();
        cluster.put(key, "garbage".getBytes(StandardCharsets.US_ASCII));
        r.await("refused MALFORMED " + key);
        cluster.delete(key);
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError(what + " within 10 s");
            }
            Thread.sleep(2);
        }
    }

    private List<String> warnings(String about) {
        return warnings.stream().map(LogRecord::getMessage).filter(m -> m.contains(about)).toList();
    }

    @Test
    void aMembersOwnBytesWrittenBackWithoutItsLeaseAreRestoredAndItsGoodbyeStillRemovesIt() throws Exception {
        Recorder ra = new Recorder();
        Recorder rb = new Recorder();
        DataTransport ta = transport("a");
        DataTransport tb = transport("b");
        member(ta, ra);
        Membership b = member(tb, rb);
        ra.await("added b ");
        String key = PREFIX + "b";
        byte[] own = cluster.get(key).orElseThrow();
        long lease = cluster.leaseOf(key);
        assertTrue(lease > 0);
        cluster.put(key, own); // a plain put: the key leaves b's lease
        ra.await("refused WRONG_LEASE " + key);
        rb.await("restored " + b.epoch());
        await(() -> cluster.leaseOf(key) == lease, "the key back on b's lease");
        assertArrayEquals(own, cluster.get(key).orElseThrow());
        sync(ra);
        ticker.advance(Duration.ofSeconds(1)); // a's held delete ends, and the entry is back: nothing changes
        sync(ra);
        assertEquals(0, ra.count("removed b") + ra.count("updated b"), ra.lines().toString());
        assertEquals(0, rb.count("lost") + rb.count("reregistered"), rb.lines().toString());
        assertEquals(1, rb.count("published"), rb.lines().toString());
        assertWriteLands(ta, "b", tb, (byte) 1);
        b.close(); // the goodbye revokes the lease, which holds the key again
        assertTrue(cluster.get(key).isEmpty(), "the goodbye left the key behind");
        sync(ra);
        ticker.advance(Duration.ofSeconds(1));
        ra.await("removed b ");
    }

    @Test
    void aGoodbyeWhileTheKeyHoldsSomeoneElsesBytesStillRemovesTheMember() throws Exception {
        Recorder ra = new Recorder();
        Recorder rb = new Recorder();
        DataTransport ta = transport("a");
        member(ta, ra);
        Membership b = member(transport("b"), rb);
        long epoch = b.epoch();
        ra.await("added b " + epoch);
        String key = PREFIX + "b";
        cluster.put(key, "junk 1".getBytes(StandardCharsets.US_ASCII));
        rb.await("restored " + epoch);
        cluster.put(key, "junk 2".getBytes(StandardCharsets.US_ASCII)); // its restore waits a quarter second
        sync(rb);
        assertEquals(0, cluster.leaseOf(key), "the junk is off b's lease");
        b.close(); // without the restore first, revoking b's lease would leave the junk, and a would keep b
        assertTrue(cluster.get(key).isEmpty(), "the goodbye left the key behind: " + cluster.get(key));
        sync(ra);
        ticker.advance(Duration.ofSeconds(1));
        ra.await("removed b " + epoch);
        assertEquals(DataTransport.NOT_SUBMITTED, ta.writeBlocks("b", new int[] {0}, new int[] {1}));
    }

    @Test
    void aWriteLandingUnseenJustBeforeTheGoodbyeLeavesNoKeyBehind() throws Exception {
        Recorder ra = new Recorder();
        DataTransport ta = transport("a");
        member(ta, ra);
        String key = PREFIX + "b";
        AtomicBoolean written = new AtomicBoolean();
        // a stranger's write lands between the member's last look at its key and its conditional delete
        Directory client = writeBeforeFirstDelete(keep(cluster.connect(PREFIX)), () -> {
            if (written.compareAndSet(false, true)) {
                cluster.put(key, "junk, unseen".getBytes(StandardCharsets.US_ASCII));
            }
        });
        Membership b = member(transport("b"), client, new Recorder());
        long epoch = b.epoch();
        ra.await("added b " + epoch);
        b.close();
        assertTrue(written.get(), "the write landed");
        assertTrue(cluster.get(key).isEmpty(), "the goodbye left the stranger's key behind: " + cluster.get(key));
        sync(ra);
        ticker.advance(Duration.ofSeconds(1));
        ra.await("removed b " + epoch);
    }

    /** {@code client}, whose publications run {@code before} ahead of each conditional delete. */
    private static Directory writeBeforeFirstDelete(Directory client, Runnable before) {
        return (Directory) Proxy.newProxyInstance(Directory.class.getClassLoader(), new Class<?>[] {Directory.class},
                (proxy, method, args) -> {
                    Object result = invoke(client, method, args);
                    if (result instanceof Publication p) {
                        return Proxy.newProxyInstance(Publication.class.getClassLoader(),
                                new Class<?>[] {Publication.class}, (pp, m, a) -> {
                                    if (m.getName().equals("deleteIfAt")) {
                                        before.run();
                                    }
                                    return invoke(p, m, a);
                                });
                    }
                    return result;
                });
    }

    private static @org.jspecify.annotations.Nullable Object invoke(Object target, java.lang.reflect.Method m,
            Object @org.jspecify.annotations.Nullable [] args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @Test
    void aCopyOffItsLeaseRemovesAMemberForEveryReaderAndALateStarterNeverSeesIt() throws Exception {
        Recorder ra = new Recorder();
        DataTransport ta = transport("a");
        DataTransport tb = transport("b");
        member(ta, ra);
        Directory bClient = keep(cluster.connect(PREFIX));
        Membership b = member(tb, bClient, new Recorder());
        long epoch = b.epoch();
        ra.await("added b " + epoch);
        String key = PREFIX + "b";
        byte[] own = cluster.get(key).orElseThrow();
        cluster.crash(bClient); // b cannot restore; its lease lives on until its TTL
        cluster.put(key, own);
        String refusal = ra.await("refused WRONG_LEASE " + key);
        assertTrue(refusal.contains("attached to no lease"), refusal);
        assertFalse(refusal.contains("other bytes"), refusal);
        sync(ra);
        ticker.advance(Duration.ofSeconds(1)); // as a delete: held for the flap interval, then applied
        ra.await("removed b " + epoch);
        assertEquals(DataTransport.NOT_SUBMITTED, ta.writeBlocks("b", new int[] {0}, new int[] {1}));
        // a process that starts now, the copy still there and b's lease still alive, never takes b for a member
        Recorder rc = new Recorder();
        DataTransport tc = transport("c");
        Membership c = member(tc, rc);
        rc.await("refused WRONG_LEASE " + key);
        assertFalse(c.members().containsKey("b"), c.members().toString());
        assertEquals(0, rc.count("added b"), rc.lines().toString());
        assertEquals(DataTransport.NOT_SUBMITTED, tc.writeBlocks("b", new int[] {0}, new int[] {1}));
    }

    @Test
    void anOverwriteStormIsRestoredAtABoundedRateAndTearsNothingDown() throws Exception {
        Recorder ra = new Recorder();
        Recorder rb = new Recorder();
        DataTransport ta = transport("a");
        DataTransport tb = transport("b");
        Membership a = member(ta, ra);
        Membership b = member(tb, rb);
        ra.await("added b ");
        rb.await("added a ");
        long epoch = b.epoch();
        String key = PREFIX + "b";
        byte[] own = cluster.get(key).orElseThrow();
        long lease = cluster.leaseOf(key);
        warnings.clear();
        for (int i = 0; i < 400; i++) {
            cluster.put(key, ("overwrite " + i).getBytes(StandardCharsets.US_ASCII));
        }
        sync(rb);
        sync(ra);
        // the first restore comes at once; another, if the storm went on after it, a quarter second later
        assertEquals(1, rb.count("restored " + epoch), rb.lines().toString());
        ticker.advance(Duration.ofMillis(250));
        await(() -> cluster.leaseOf(key) == lease, "b's entry back on its lease");
        assertArrayEquals(own, cluster.get(key).orElseThrow());
        ticker.advance(Duration.ofSeconds(1));
        sync(rb);
        sync(ra);
        long restores = rb.count("restored " + epoch);
        assertTrue(restores <= 2, "at most one restore per quarter second: " + rb.lines());
        assertEquals(epoch, b.epoch(), "no new epoch");
        assertEquals(List.of("published " + epoch), rb.lines().stream().filter(l -> l.startsWith("published")
                || l.startsWith("lost") || l.startsWith("reregistered") || l.startsWith("removed")).toList());
        assertEquals(0, ra.count("removed b") + ra.count("updated b"), ra.lines().toString());
        assertEquals(epoch, a.members().get("b"));
        assertWriteLands(ta, "b", tb, (byte) 2);
        assertWriteLands(tb, "a", ta, (byte) 3);
        // in the log: one line each for the first refusal and the first restore, the rest in summaries
        assertEquals(1, warnings("'b': its entry under").size(), warnings.toString());
        assertEquals(1, warnings("membership 'a' refused the entry under '" + key).size(), warnings.toString());
        assertFalse(warnings.stream().anyMatch(r -> r.getMessage().contains("removed")), warnings.toString());
        ticker.advance(Duration.ofSeconds(10));
        await(() -> warnings.stream().anyMatch(r -> r.getMessage().startsWith("membership 'a' refused 4")
                && r.getMessage().contains("more entries")), "a's summary " + warnings.stream()
                .map(LogRecord::getMessage).toList());
        if (restores == 2) {
            await(() -> !warnings("membership 'b' restored its entry 1 more times").isEmpty(), "b's summary");
        }
        assertTrue(warnings.size() <= 6, warnings.stream().map(LogRecord::getMessage).toList().toString());
    }

    @Test
    void aJunkFloodIsToldToListenersInFullAndToTheLogInAFewLines() throws Exception {
        Recorder ra = new Recorder();
        member(transport("a"), ra);
        warnings.clear();
        for (int i = 0; i < 5000; i++) {
            cluster.put(PREFIX + "junk-" + i, new byte[] {'j', (byte) i});
        }
        sync(ra);
        assertEquals(5001, ra.count("refused MALFORMED"), "every refusal told to the listener");
        assertEquals(1, warnings.size(), warnings.stream().map(LogRecord::getMessage).toList().toString());
        ticker.advance(Duration.ofSeconds(10));
        await(() -> warnings.size() == 2, "the summary");
        String summary = warnings.get(1).getMessage();
        assertTrue(summary.contains("refused 5,000 more entries in the last 10 s (MALFORMED 5,000)"), summary);
        assertTrue(summary.contains(PREFIX + "junk-1, "), summary);
        ticker.advance(Duration.ofSeconds(10));
        Thread.sleep(200); // the loop runs its due timer (the digest's quiet end) before the next refusal
        sync(ra); // a quiet interval ended the digest: the next refusal is logged in full again
        assertEquals(3, warnings.size(), warnings.stream().map(LogRecord::getMessage).toList().toString());
    }

    @Test
    void membersNeverListsAMemberWhoseRegistrationIsBeingReplaced() throws Exception {
        Recorder ra = new Recorder();
        DataTransport real = transport("a");
        AtomicBoolean holding = new AtomicBoolean();
        AtomicInteger held = new AtomicInteger();
        CompletableFuture<Void> release = new CompletableFuture<>();
        DataTransport ta = HeldRegistrations.holding(real, id -> holding.get(), held::incrementAndGet, release);
        DataTransport tb = transport("b");
        Membership a = member(ta, ra);
        member(tb, new Recorder());
        ra.await("added b ");
        long bEpoch = a.members().get("b");
        holding.set(true);
        long first = a.epoch();
        assertTrue(cluster.loseLease(PREFIX + "a"));
        ra.await("lost " + first);
        await(() -> held.get() == 1, "the re-registration of b started");
        assertFalse(a.members().containsKey("b"), "members() lists b while its registration is replaced: "
                + a.members());
        release.complete(null);
        ra.await("reregistered b " + bEpoch);
        assertEquals(bEpoch, a.members().get("b"));
        assertWriteLands(ta, "b", tb, (byte) 4);
    }
}
