package io.blockxfer.tck;

import static io.blockxfer.tck.ConformanceRules.P1;
import static io.blockxfer.tck.ConformanceRules.P10;
import static io.blockxfer.tck.ConformanceRules.P11;
import static io.blockxfer.tck.ConformanceRules.P2;
import static io.blockxfer.tck.ConformanceRules.P3;
import static io.blockxfer.tck.ConformanceRules.P4;
import static io.blockxfer.tck.ConformanceRules.P5;
import static io.blockxfer.tck.ConformanceRules.P6;
import static io.blockxfer.tck.ConformanceRules.P7;
import static io.blockxfer.tck.ConformanceRules.P8;
import static io.blockxfer.tck.ConformanceRules.P9;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.IncompatiblePeerException;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.PeerTraffic;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.RegistrationSupersededException;
import io.blockxfer.transport.TransferFuture;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * P: registering, replacing and removing peers, synchronously and not, what happens to their
 * transfers, and what {@code traffic(peer)} says of them.
 *
 * <p><b>Thread safety:</b> JUnit makes one instance per rule; not shared.
 */
abstract class PeerRules extends RuleGroup {

    /** How long {@link #holdRegistrationThread} tries, at least. */
    private static final long HOLD_ATTEMPT_MILLIS = 5_000;

    PeerRules(TransportConformanceSuite suite) {
        super(suite);
    }

    @RuleTest(P1)
    public final void p1_unknownPeer() {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        assertEquals(DataTransport.NOT_SUBMITTED, t.writeBlocks("nobody", new int[] {0}, new int[] {0}),
                fx.msg("write to an unknown peer"));
        if (fx.has(Capability.READ)) {
            assertEquals(DataTransport.NOT_SUBMITTED, t.readBlocks("nobody", new int[] {0}, new int[] {0}),
                    fx.msg("read from an unknown peer"));
        }
        assertSame(PollResult.EMPTY, fx.poll(t, "nobody"), fx.msg("poll of an unknown peer"));
        assertSame(PollResult.EMPTY, fx.poll(t, null), fx.msg("pollAll with no transfers"));
        assertEquals(0, fx.pollWith(t, "nobody", (id, ok) -> fail(fx.msg("handler called for " + id))),
                fx.msg("handler poll of an unknown peer"));
        assertEquals(0, fx.pollWith(t, null, (id, ok) -> fail(fx.msg("handler called for " + id))),
                fx.msg("handler pollAll with no transfers"));
    }

    @RuleTest(P2)
    public final void p2_blockLengthMismatch() {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer other = fx.target(fx.config(Fixture.BLOCKS, Fixture.BLOCK_LENGTH * 2, fx.env.timeout()));
        var e = assertThrows(IncompatiblePeerException.class, () -> t.addPeer("a", other.descriptor()),
                fx.msg("block length mismatch accepted"));
        assertTrue(String.valueOf(e.getMessage()).contains("block length"),
                fx.msg("message should name the block length: " + e));
        assertThrows(IncompatiblePeerException.class, () -> t.addPeerAsync("a", other.descriptor()),
                fx.msg("addPeerAsync must reject a block length mismatch on the calling thread"));
        assertEquals(DataTransport.NOT_SUBMITTED, t.writeBlocks("a", new int[] {0}, new int[] {0}),
                fx.msg("a rejected peer was registered"));
    }

    @RuleTest(P3)
    public final void p3_fingerprintAndBackendMismatch() {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer target = fx.target();
        PeerDescriptor d = target.descriptor();
        PeerDescriptor otherFingerprint = Fixture.with(d, d.backend(), "0123456789abcdef", d.baseAddress(),
                d.numBlocks(), d.blockLength(), d.metadata());
        var e = assertThrows(IncompatiblePeerException.class, () -> t.addPeer("b", otherFingerprint),
                fx.msg("fingerprint mismatch accepted"));
        assertTrue(String.valueOf(e.getMessage()).contains("fingerprint"),
                fx.msg("message should name the fingerprint: " + e));
        PeerDescriptor otherBackend = Fixture.with(d, d.backend() + "-other", d.fingerprint(), d.baseAddress(),
                d.numBlocks(), d.blockLength(), d.metadata());
        assertThrows(IncompatiblePeerException.class, () -> t.addPeer("b", otherBackend),
                fx.msg("backend mismatch accepted"));
        assertThrows(IncompatiblePeerException.class, () -> t.addPeerAsync("b", otherFingerprint),
                fx.msg("addPeerAsync must reject a fingerprint mismatch on the calling thread"));
        assertEquals(DataTransport.NOT_SUBMITTED, t.writeBlocks("b", new int[] {0}, new int[] {0}),
                fx.msg("a rejected peer was registered"));
        t.addPeer("a", d);
        assertThrows(IncompatiblePeerException.class, () -> t.addPeer("a", otherFingerprint),
                fx.msg("re-adding a registered peer with another fingerprint was accepted"));
        long id = t.writeBlocks("a", new int[] {2}, new int[] {7});
        if (id == DataTransport.NOT_SUBMITTED) {
            fail(fx.msg("a rejected re-add took the registered peer 'a' away (nothing may change)"));
        }
        fx.assertAllDone(fx.await(t, "a", List.of(id)));
        fx.assertTargetBlock(target, 7, BlockPattern.seed(Fixture.LOCAL, 2), "transfer " + id
                + " after a rejected re-add");
    }

    @RuleTest(P4)
    public final void p4_removePeer() {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        fx.connectedTarget(t, "a");
        assertTrue(t.removePeer("a"), fx.msg("removePeer of a registered peer returned false"));
        assertEquals(DataTransport.NOT_SUBMITTED, t.writeBlocks("a", new int[] {0}, new int[] {0}),
                fx.msg("write after removePeer"));
        assertFalse(t.removePeer("a"), fx.msg("second removePeer returned true"));
        assertFalse(t.removePeer("never-added"), fx.msg("removePeer of an unknown peer returned true"));
        assertSame(PollResult.EMPTY, fx.poll(t, "a"), fx.msg("poll after removing an idle peer"));
    }

    @RuleTest(P5)
    public final void p5_removeEndsOnlyThatPeer() {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        TargetPeer b = fx.connectedTarget(t, "b");
        Fixture.Hold hold = fx.hold(t, a);
        long since = System.nanoTime();
        fx.startHolding(hold, t, a);
        List<Long> aIds = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            aIds.add(fx.write(t, "a", i, 32 + i));
        }
        fx.stopDelaying(hold, t);
        List<Long> bIds = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            bIds.add(fx.write(t, "b", i, i));
        }
        assertTrue(t.removePeer("a"), fx.msg("removePeer"));
        Map<Long, Boolean> aOut = fx.await(t, "a", aIds);
        if (hold != Fixture.Hold.NONE) {
            fx.assertAllFailed(aOut, "although it was held in flight (" + hold + ") when its peer was removed");
        }
        fx.assertAllDone(fx.await(t, "b", bIds));
        for (int i = 0; i < 16; i++) {
            fx.assertTargetBlock(b, i, BlockPattern.seed(Fixture.LOCAL, i), "peer b after removing peer a");
        }
        fx.release(hold, a, since);
        fx.assertQuiet(t, "a", "after the removed peer's transfers were all reported");
        fx.assertQuiet(t, null, "after every transfer was reported");
        if (hold == Fixture.Hold.NONE) {
            for (int i = 0; i < 16; i++) {
                if (fx.reportedDone(aOut, aIds.get(i))) {
                    fx.assertTargetBlock(a, 32 + i, BlockPattern.seed(Fixture.LOCAL, i), "transfer " + aIds.get(i)
                            + ", reported done after its peer was removed");
                }
            }
        }
    }

    @RuleTest(P6)
    public final void p6_reAddReplaces() {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer first = fx.connectedTarget(t, "a");
        TargetPeer second = fx.target();
        List<Long> early = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            early.add(fx.write(t, "a", i, i));
        }
        Fixture.Hold hold = fx.hold(t, first);
        long since = System.nanoTime();
        fx.startHolding(hold, t, first);
        List<Long> held = new ArrayList<>();
        if (hold != Fixture.Hold.NONE) {
            for (int i = 4; i < 8; i++) {
                held.add(fx.write(t, "a", i, i));
            }
        }
        fx.stopDelaying(hold, t);
        t.addPeer("a", second.descriptor());
        long fresh = fx.write(t, "a", 40, 41);
        List<Long> all = new ArrayList<>(early);
        all.addAll(held);
        all.add(fresh);
        Map<Long, Boolean> outcomes = fx.await(t, "a", all);
        assertTrue(fx.reportedDone(outcomes, fresh), fx.msg("transfer " + fresh + " after re-adding failed"));
        fx.assertTargetBlock(second, 41, BlockPattern.seed(Fixture.LOCAL, 40), "transfer " + fresh
                + " after re-adding the peer with a new region");
        for (long id : held) {
            if (fx.reportedDone(outcomes, id)) {
                fail(fx.msg("transfer " + id + " was held in flight (" + hold + ") when its registration was"
                        + " replaced, yet reported done"));
            }
        }
        fx.release(hold, first, since);
        for (int i = 0; i < 4; i++) {
            if (fx.reportedDone(outcomes, early.get(i))) {
                fx.assertTargetBlock(first, i, BlockPattern.seed(Fixture.LOCAL, i), "transfer " + early.get(i)
                        + " to the replaced registration, reported done");
            }
        }
        fx.assertTargetBlock(first, 41, BlockPattern.seed(Fixture.TARGET, 41), "the old region after re-adding"
                + " (transfer " + fresh + " must reach the new one)");
        fx.assertUntouched(second, Set.of(41), "the new region: transfers to the replaced registration must not"
                + " land in it");
        fx.assertQuiet(t, "a", "after every transfer of the peer was reported");
    }

    @RuleTest(P7)
    public final void p7_addPeerAsync() throws Exception {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer a = fx.target();
        CompletableFuture<Void> f = t.addPeerAsync("a", a.descriptor());
        f.get(fx.env.timeout().toMillis(), TimeUnit.MILLISECONDS);
        long id = t.writeBlocks("a", new int[] {7}, new int[] {9});
        if (id == DataTransport.NOT_SUBMITTED) {
            fail(fx.msg("addPeerAsync's future completed before the peer took transfers"));
        }
        fx.assertAllDone(fx.await(t, "a", List.of(id)));
        fx.assertTargetBlock(a, 9, BlockPattern.seed(Fixture.LOCAL, 7), "transfer " + id);
    }

    @RuleTest(P8)
    public final void p8_supersededRegistration() throws Exception {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer a = fx.target();
        TargetPeer b = fx.target();
        CountDownLatch hold = new CountDownLatch(1);
        try {
            holdRegistrationThread(fx, t, a, hold);
            // the registration thread is busy: these registrations cannot finish before what follows
            CompletableFuture<Void> removed = t.addPeerAsync("a", a.descriptor());
            t.removePeer("a");
            CompletableFuture<Void> replaced = t.addPeerAsync("b", b.descriptor());
            CompletableFuture<Void> winner = t.addPeerAsync("b", b.descriptor());
            assertEquals(DataTransport.NOT_SUBMITTED, t.writeBlocks("a", new int[] {0}, new int[] {0}),
                    fx.msg("a registration still being built took transfers"));
            hold.countDown();
            expectSuperseded(fx, removed, "the registration of 'a' superseded by removePeer('a')");
            expectSuperseded(fx, replaced, "the first of two registrations of 'b'");
            winner.get(fx.env.timeout().toMillis(), TimeUnit.MILLISECONDS);
            assertEquals(DataTransport.NOT_SUBMITTED, t.writeBlocks("a", new int[] {0}, new int[] {0}),
                    fx.msg("a registration superseded by removePeer published after all"));
            long id = fx.write(t, "b", 1, 2);
            fx.assertAllDone(fx.await(t, "b", List.of(id)));
            fx.assertTargetBlock(b, 2, BlockPattern.seed(Fixture.LOCAL, 1), "transfer " + id);
        } finally {
            hold.countDown();
        }
    }

    /**
     * Makes the registration thread run a callback of a registration's future that waits for
     * {@code hold}: a dependent action of a future runs on the thread that completes it. An attempt
     * whose registrations all finished before the callback was attached (the registration thread,
     * woken by the submit, can take this thread's core on a loaded host and run to the end) is
     * tried again a millisecond later, for up to {@value #HOLD_ATTEMPT_MILLIS} ms.
     */
    private static void holdRegistrationThread(Fixture fx, DataTransport t, TargetPeer target, CountDownLatch hold)
            throws InterruptedException {
        Thread rule = Thread.currentThread();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(HOLD_ATTEMPT_MILLIS);
        for (int attempt = 0; attempt < 50 || System.nanoTime() - deadline < 0; attempt++) {
            CountDownLatch entered = new CountDownLatch(1);
            AtomicReference<Thread> ranOn = new AtomicReference<>();
            CompletableFuture<Void> f = t.addPeerAsync("registration-holder", target.descriptor());
            for (int i = 1; i < 4; i++) {
                f = t.addPeerAsync("registration-holder", target.descriptor());
            }
            // the callback's own stage is not needed: what it does on the registration thread is the point
            var unused = f.whenComplete((v, e) -> {
                ranOn.set(Thread.currentThread());
                if (Thread.currentThread() != rule) {
                    entered.countDown();
                    try {
                        hold.await(60, TimeUnit.SECONDS);
                    } catch (InterruptedException ie) {
                        Thread.currentThread().interrupt();
                    }
                }
            });
            if (ranOn.get() == rule) {
                Thread.sleep(1); // the registration finished before the callback was attached; try again
                continue;
            }
            if (entered.await(fx.env.timeout().toMillis(), TimeUnit.MILLISECONDS)) {
                return;
            }
        }
        fail(fx.msg("could not keep the registration thread busy: addPeerAsync finished every registration"
                + " before returning (its native work must run on the transport's registration thread)"));
    }

    private static void expectSuperseded(Fixture fx, CompletableFuture<Void> f, String what) throws Exception {
        try {
            f.get(fx.env.timeout().toMillis(), TimeUnit.MILLISECONDS);
            fail(fx.msg(what + " completed normally; it must fail with RegistrationSupersededException"));
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof RegistrationSupersededException)) {
                throw new AssertionError(fx.msg(what + " failed with " + e.getCause()
                        + "; expected RegistrationSupersededException"), e.getCause());
            }
        } catch (TimeoutException e) {
            fail(fx.msg(what + " did not complete within " + fx.env.timeout().toMillis() + " ms"));
        }
    }

    @RuleTest(P9)
    public final void p9_owedReportsOfRemovedPeers() {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        Fixture.Hold hold = fx.hold(t, a);
        long since = System.nanoTime();
        fx.startHolding(hold, t, a);
        List<Long> first = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            first.add(fx.write(t, "a", i, i));
        }
        assertTrue(t.removePeer("a"), fx.msg("removePeer"));
        Map<Long, Boolean> out1 = fx.await(t, null, first);
        t.addPeer("a", a.descriptor());
        List<Long> second = new ArrayList<>();
        for (int i = 6; i < 12; i++) {
            second.add(fx.write(t, "a", i, i));
        }
        assertTrue(t.removePeer("a"), fx.msg("removePeer"));
        t.addPeer("a", a.descriptor());
        Map<Long, Boolean> out2 = fx.await(t, "a", second);
        if (hold != Fixture.Hold.NONE) {
            fx.assertAllFailed(out1, "although it was held in flight (" + hold + ") when its peer was removed");
            fx.assertAllFailed(out2, "although it was held in flight (" + hold + ") when its peer was removed");
        }
        fx.stopDelaying(hold, t);
        fx.release(hold, a, since);
        fx.assertQuiet(t, "a", "after the removed peer's transfers were all reported");
        fx.assertQuiet(t, null, "after every transfer was reported");
        long id = fx.write(t, "a", 20, 21);
        fx.assertAllDone(fx.await(t, "a", List.of(id)));
        fx.assertTargetBlock(a, 21, BlockPattern.seed(Fixture.LOCAL, 20), "transfer " + id + " after re-adding");
    }

    @RuleTest(P10)
    public final void p10_completedReportedDoneOnRetire() {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        int[] local = Fixture.range(0, 4);
        int[] remote = Fixture.range(10, 4);
        Set<Long> ids = new HashSet<>();
        for (int i = 0; i < 4; i++) {
            ids.add(fx.write(t, "a", local[i], remote[i]));
        }
        fx.awaitLanded(a, local, remote, "transfers " + ids);
        assertTrue(t.removePeer("a"), fx.msg("removePeer"));
        Map<Long, Boolean> removed = fx.await(t, "a", ids);
        removed.forEach((id, done) -> assertTrue(done, fx.msg("transfer " + id + " had completed (its bytes landed "
                + fx.env.settle().toMillis() + " ms before) but was reported failed when its peer was removed")));
        t.addPeer("a", a.descriptor());
        int[] local2 = Fixture.range(20, 4);
        int[] remote2 = Fixture.range(30, 4);
        Set<Long> ids2 = new HashSet<>();
        for (int i = 0; i < 4; i++) {
            ids2.add(fx.write(t, "a", local2[i], remote2[i]));
        }
        fx.awaitLanded(a, local2, remote2, "transfers " + ids2);
        t.addPeer("a", a.descriptor());
        Map<Long, Boolean> replaced = fx.await(t, "a", ids2);
        replaced.forEach((id, done) -> assertTrue(done, fx.msg("transfer " + id + " had completed (its bytes landed "
                + fx.env.settle().toMillis() + " ms before) but was reported failed when its peer was re-added")));
    }

    @RuleTest(P11)
    @SuppressWarnings("NullAway") // passes null where the API forbids it, on purpose: the rule is that it is refused
    public final void p11_traffic() throws Exception {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        assertEquals(Optional.empty(), t.traffic("nobody"), fx.msg("traffic of a peer never added"));
        assertThrows(NullPointerException.class, () -> t.traffic(null), fx.msg("traffic(null) must be refused"));
        TargetPeer a = fx.connectedTarget(t, "a");
        assertTraffic(fx, t, "a", 0, 0, "of a peer just added");
        Fixture.Hold hold = fx.hold(t, a);
        long since = System.nanoTime();
        fx.startHolding(hold, t, a);
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ids.add(fx.write(t, "a", i, i));
        }
        TransferFuture future = t.writeBlocksAsync("a", new int[] {3}, new int[] {3});
        PeerTraffic held = traffic(fx, t, "a", "with four transfers submitted");
        assertEquals(4, held.submitted(), fx.msg("traffic('a') after three WRITEs and one asynchronous WRITE: "
                + held));
        if (hold != Fixture.Hold.NONE) {
            assertEquals(4, held.inFlight(), fx.msg("traffic('a') while its four transfers are held in flight ("
                    + hold + "): " + held));
        }
        fx.stopDelaying(hold, t);
        fx.release(hold, a, since);
        fx.assertAllDone(fx.await(t, "a", ids));
        future.get(fx.env.timeout().toMillis(), TimeUnit.MILLISECONDS);
        assertTraffic(fx, t, "a", 4, 0, "once its four transfers ended (" + ids + " reported, "
                + future.transferId() + "'s future completed)");
        t.addPeer("a", a.descriptor());
        assertTraffic(fx, t, "a", 0, 0, "after the peer was added again");
        long id = fx.write(t, "a", 5, 5);
        fx.awaitLanded(a, new int[] {5}, new int[] {5}, "transfer " + id);
        awaitNoneInFlight(fx, t, "a", 1, "transfer " + id + ", whose bytes landed and which nothing polled");
        fx.assertAllDone(fx.await(t, "a", List.of(id)));
        assertTraffic(fx, t, "a", 1, 0, "once the one transfer since the re-add was reported");
        long last = fx.write(t, "a", 6, 6);
        assertTrue(t.removePeer("a"), fx.msg("removePeer"));
        assertEquals(Optional.empty(), t.traffic("a"), fx.msg("traffic of a removed peer that still owes the report"
                + " of transfer " + last));
        fx.await(t, "a", List.of(last));
        assertEquals(Optional.empty(), t.traffic("a"), fx.msg("traffic of a removed peer"));
        t.close();
        assertThrows(IllegalStateException.class, () -> t.traffic("a"), fx.msg("traffic after close"));
    }

    private static PeerTraffic traffic(Fixture fx, DataTransport t, String peerId, String when) {
        Optional<PeerTraffic> traffic = t.traffic(peerId);
        if (traffic == null || traffic.isEmpty()) {
            throw new AssertionError(fx.msg("traffic('" + peerId + "') of a registered peer " + when + " is "
                    + traffic));
        }
        return traffic.get();
    }

    /**
     * Reads {@code traffic(peerId)} without polling until nothing is in flight: a transfer that
     * ended counts no longer, whether or not a poll found it ended.
     */
    private static void awaitNoneInFlight(Fixture fx, DataTransport t, String peerId, long submitted, String what)
            throws InterruptedException {
        long start = System.nanoTime();
        PeerTraffic now = traffic(fx, t, peerId, "after " + what);
        while (now.inFlight() > 0 && System.nanoTime() - start < fx.env.timeout().toNanos()) {
            Thread.sleep(1);
            now = traffic(fx, t, peerId, "after " + what);
        }
        assertEquals(new PeerTraffic(submitted, 0), now, fx.msg("traffic('" + peerId + "') "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms after " + what + ": in flight"
                + " means not ended, whether or not a poll found it ended"));
    }

    private static void assertTraffic(Fixture fx, DataTransport t, String peerId, long submitted, int inFlight,
            String when) {
        PeerTraffic traffic = traffic(fx, t, peerId, when);
        assertEquals(new PeerTraffic(submitted, inFlight), traffic, fx.msg("traffic('" + peerId + "') " + when));
    }
}
