package io.blockxfer.tck;

import static io.blockxfer.tck.ConformanceRules.W1;
import static io.blockxfer.tck.ConformanceRules.W10;
import static io.blockxfer.tck.ConformanceRules.W11;
import static io.blockxfer.tck.ConformanceRules.W12;
import static io.blockxfer.tck.ConformanceRules.W2;
import static io.blockxfer.tck.ConformanceRules.W3;
import static io.blockxfer.tck.ConformanceRules.W4;
import static io.blockxfer.tck.ConformanceRules.W5;
import static io.blockxfer.tck.ConformanceRules.W6;
import static io.blockxfer.tck.ConformanceRules.W7;
import static io.blockxfer.tck.ConformanceRules.W8;
import static io.blockxfer.tck.ConformanceRules.W9;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.blockxfer.transport.CancelMode;
import com.sun.management.ThreadMXBean;
import io.blockxfer.transport.Capability;
import io.blockxfer.transport.CompletionHandler;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PollResult;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.function.Executable;

/**
 * W: writes land byte for byte where their indices say, nothing else moves, and bad arguments
 * change nothing.
 *
 * <p><b>Thread safety:</b> JUnit makes one instance per rule; not shared.
 */
abstract class WriteRules extends RuleGroup {

    WriteRules(TransportConformanceSuite suite) {
        super(suite);
    }

    @RuleTest(W1)
    public final void w1_singleBlockWrite() {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        long id = fx.write(t, "a", 5, 11);
        fx.assertAllDone(fx.await(t, "a", List.of(id)));
        fx.assertTargetBlock(a, 11, BlockPattern.seed(Fixture.LOCAL, 5), "transfer " + id);
        fx.assertUntouched(a, Set.of(11), "beside transfer " + id);
        for (int b = 0; b < Fixture.BLOCKS; b++) {
            fx.assertLocalBlock(t, b, BlockPattern.seed(Fixture.LOCAL, b), "local region after transfer " + id);
        }
    }

    @RuleTest(W2)
    public final void w2_batchWrite() {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        Random random = new Random(42);
        List<Integer> remote = new ArrayList<>();
        for (int i = 0; i < Fixture.BLOCKS; i++) {
            remote.add(i);
        }
        Collections.shuffle(remote, random);
        int[] local = new int[48];
        int[] rem = new int[48];
        for (int i = 0; i < 48; i++) {
            local[i] = (i * 7) % Fixture.BLOCKS;
            rem[i] = remote.get(i);
        }
        long id = fx.write(t, "a", local, rem);
        fx.assertAllDone(fx.await(t, "a", List.of(id)));
        Set<Integer> written = new HashSet<>();
        for (int i = 0; i < 48; i++) {
            fx.assertTargetBlock(a, rem[i], BlockPattern.seed(Fixture.LOCAL, local[i]), "transfer " + id + " pair " + i);
            written.add(rem[i]);
        }
        fx.assertUntouched(a, written, "outside transfer " + id);
    }

    @RuleTest(W3)
    public final void w3_runs() {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        int[] reversed = Fixture.range(16, 16);
        for (int i = 0; i < 8; i++) {
            int x = reversed[i];
            reversed[i] = reversed[15 - i];
            reversed[15 - i] = x;
        }
        Map<String, int[][]> transfers = new LinkedHashMap<>();
        transfers.put("a contiguous run", new int[][] {Fixture.range(0, 8), Fixture.range(16, 8)});
        transfers.put("a reversed run", new int[][] {reversed, Fixture.range(26, 16)});
        transfers.put("a repeated source", new int[][] {{3, 3, 3}, {60, 61, 62}});
        transfers.put("a run contiguous on the local side only", new int[][] {{48, 49, 50, 51}, {0, 2, 4, 6}});
        transfers.put("a run contiguous on the remote side only", new int[][] {{52, 55, 58, 61}, {8, 9, 10, 11}});
        transfers.put("a descending remote run", new int[][] {{12, 13}, {44, 43}});
        Map<Long, String> names = new HashMap<>();
        Map<Long, int[][]> byId = new LinkedHashMap<>();
        transfers.forEach((name, pair) -> {
            long id = fx.write(t, "a", pair[0], pair[1]);
            names.put(id, name);
            byId.put(id, pair);
        });
        fx.assertAllDone(fx.await(t, "a", byId.keySet()));
        Set<Integer> written = new HashSet<>();
        byId.forEach((id, pair) -> {
            fx.assertWritten(a, pair[0], pair[1], names.get(id) + " (transfer " + id + ")");
            for (int r : pair[1]) {
                written.add(r);
            }
        });
        fx.assertUntouched(a, written, "beside the runs");
    }

    @RuleTest(W4)
    public final void w4_manyInFlight() {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        Random random = new Random(4);
        for (int round = 0; round < 4; round++) {
            List<Integer> perm = new ArrayList<>();
            for (int i = 0; i < Fixture.BLOCKS; i++) {
                perm.add(i);
            }
            Collections.shuffle(perm, random);
            List<Long> ids = new ArrayList<>();
            int[] source = new int[Fixture.BLOCKS];
            for (int i = 0; i < Fixture.BLOCKS; i++) {
                source[i] = (i * 7 + round) % Fixture.BLOCKS;
                ids.add(fx.write(t, "a", source[i], perm.get(i)));
            }
            fx.assertAllDone(fx.await(t, "a", ids));
            for (int i = 0; i < Fixture.BLOCKS; i++) {
                fx.assertTargetBlock(a, perm.get(i), BlockPattern.seed(Fixture.LOCAL, source[i]),
                        "round " + round + ", transfer " + ids.get(i));
            }
        }
    }

    @RuleTest(W5)
    public final void w5_badArrays() {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        IdGap gap = IdGap.measure(fx, t, "a");
        var empty = assertThrows(IllegalArgumentException.class, () -> t.writeBlocks("a", new int[0], new int[0]),
                fx.msg("empty transfer accepted"));
        assertTrue(String.valueOf(empty.getMessage()).contains("empty"),
                fx.msg("message should say empty: " + empty.getMessage()));
        var unequal = assertThrows(IllegalArgumentException.class,
                () -> t.writeBlocks("a", new int[] {1, 2}, new int[] {1}), fx.msg("unequal arrays accepted"));
        String unequalMessage = String.valueOf(unequal.getMessage());
        assertTrue(unequalMessage.contains("2") && unequalMessage.contains("1"),
                fx.msg("message should give both lengths: " + unequalMessage));
        assertThrows(IllegalArgumentException.class, () -> t.writeBlocks("a", new int[] {1}, new int[] {1, 2}),
                fx.msg("unequal arrays accepted"));
        if (fx.has(Capability.READ)) {
            assertThrows(IllegalArgumentException.class, () -> t.readBlocks("a", new int[0], new int[0]),
                    fx.msg("empty READ accepted"));
            assertThrows(IllegalArgumentException.class, () -> t.readBlocks("a", new int[] {1, 2}, new int[] {1}),
                    fx.msg("unequal READ arrays accepted"));
        }
        fx.assertQuiet(t, "a", "after rejected calls");
        gap.assertNextFollows(fx, t, "a", "rejected calls with empty or unequal arrays");
        fx.assertUntouched(a, Set.of(0, 1, 2), "after rejected calls");
    }

    @RuleTest(W6)
    public final void w6_outOfRange() {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer small = fx.target(fx.config(16, Fixture.BLOCK_LENGTH, fx.env.timeout()));
        t.addPeer("small", small.descriptor());
        IdGap gap = IdGap.measure(fx, t, "small");
        int[][][] bad = {
            {{-1}, {0}}, {{Fixture.BLOCKS}, {0}}, {{0}, {-1}}, {{0}, {16}}, {{0, 1, 2}, {3, 4, 16}},
            {{0, 1, Fixture.BLOCKS}, {5, 6, 7}}, {{0}, {Fixture.BLOCKS}}, {{Integer.MIN_VALUE}, {0}},
            {{0}, {Integer.MAX_VALUE}}, {{16}, {17}},
        };
        for (int[][] pair : bad) {
            var e = assertThrows(IllegalArgumentException.class, () -> t.writeBlocks("small", pair[0], pair[1]),
                    fx.msg("indices " + Arrays.toString(pair[0]) + " -> " + Arrays.toString(pair[1]) + " accepted"));
            assertTrue(String.valueOf(e.getMessage()).contains("out of range"),
                    fx.msg("message should say out of range: " + e));
            if (fx.has(Capability.READ)) {
                assertThrows(IllegalArgumentException.class, () -> t.readBlocks("small", pair[0], pair[1]),
                        fx.msg("READ indices " + Arrays.toString(pair[0]) + " <- " + Arrays.toString(pair[1])
                                + " accepted"));
            }
        }
        fx.assertQuiet(t, "small", "after rejected transfers");
        gap.assertNextFollows(fx, t, "small", "rejected calls with indices out of range");
        fx.assertUntouched(small, Set.of(0, 1, 2), "after rejected transfers");
        for (int b = 0; b < Fixture.BLOCKS; b++) {
            fx.assertLocalBlock(t, b, BlockPattern.seed(Fixture.LOCAL, b), "after rejected READs");
        }
    }

    @RuleTest(W7)
    @SuppressWarnings("NullAway") // passes null where the API forbids it, on purpose: the rule is that it is refused
    public final void w7_nulls() {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        IdGap gap = IdGap.measure(fx, t, "a");
        expectNull(fx, "peerId", () -> t.writeBlocks(null, new int[] {0}, new int[] {0}));
        expectNull(fx, "localBlocks", () -> t.writeBlocks("a", null, new int[] {0}));
        expectNull(fx, "remoteBlocks", () -> t.writeBlocks("a", new int[] {0}, null));
        if (fx.has(Capability.READ)) {
            expectNull(fx, "peerId", () -> t.readBlocks(null, new int[] {0}, new int[] {0}));
            expectNull(fx, "localBlocks", () -> t.readBlocks("a", null, new int[] {0}));
            expectNull(fx, "remoteBlocks", () -> t.readBlocks("a", new int[] {0}, null));
        }
        expectNull(fx, "peerId", () -> t.poll((String) null));
        expectNull(fx, "peerId", () -> t.poll(null, (id, ok) -> { }));
        expectNull(fx, "handler", () -> t.poll("a", null));
        expectNull(fx, "handler", () -> t.pollAll(null));
        expectNull(fx, "ids", () -> t.cancel(null, CancelMode.WAIT));
        expectNull(fx, "mode", () -> t.cancel(new long[] {1}, null));
        expectNull(fx, "peerId", () -> t.addPeer(null, a.descriptor()));
        expectNull(fx, "peer", () -> t.addPeer("b", null));
        expectNull(fx, "peerId", () -> t.addPeerAsync(null, a.descriptor()));
        expectNull(fx, "peer", () -> t.addPeerAsync("b", null));
        expectNull(fx, "peerId", () -> t.removePeer(null));
        expectNull(fx, "type", () -> t.feature(null));
        fx.assertQuiet(t, "a", "after calls with null arguments");
        assertEquals(DataTransport.NOT_SUBMITTED, t.writeBlocks("b", new int[] {0}, new int[] {0}),
                fx.msg("a call with a null argument registered peer 'b'"));
        gap.assertNextFollows(fx, t, "a", "calls with null arguments");
    }

    private static void expectNull(Fixture fx, String argument, Executable call) {
        var e = assertThrows(NullPointerException.class, call, fx.msg("null " + argument + " accepted"));
        assertTrue(String.valueOf(e.getMessage()).contains(argument),
                fx.msg("message should name '" + argument + "': " + e.getMessage()));
    }

    @RuleTest(W8)
    public final void w8_notDoneBeforeLanded() {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        requireStall(a);
        fx.stall(a);
        Map<Long, int[][]> transfers = new LinkedHashMap<>();
        for (int i = 0; i < 6; i++) {
            int[] local = Fixture.range(8 * i, 8);
            int[] remote = Fixture.range(8 * ((i + 3) % 8), 8);
            transfers.put(fx.write(t, "a", local, remote), new int[][] {local, remote});
        }
        Map<Long, Boolean> early = new LinkedHashMap<>();
        Set<Long> pending = new HashSet<>(transfers.keySet());
        long end = System.nanoTime() + fx.env.quiet().toNanos() * 2;
        while (System.nanoTime() - end < 0) {
            fx.record(fx.poll(t, "a"), pending, early, "a");
        }
        if (a.stallHoldsTransfers() && !early.isEmpty()) {
            fail(fx.msg("transfers " + early + " were reported while their target was stalled and nothing could"
                    + " have moved"));
        }
        fx.thaw(a);
        Map<Long, Boolean> outcomes = new LinkedHashMap<>(early);
        outcomes.putAll(fx.await(t, "a", pending));
        fx.assertAllDone(outcomes);
        Set<Integer> written = new HashSet<>();
        transfers.forEach((id, pair) -> {
            fx.assertWritten(a, pair[0], pair[1], "transfer " + id + " to a target stalled and thawed");
            for (int r : pair[1]) {
                written.add(r);
            }
        });
        fx.assertUntouched(a, written, "beside the transfers");
    }

    @RuleTest(W9)
    public final void w9_changingLengths() {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        Random random = new Random(9);
        int[] lengths = {32, 1, 16, 2, 31, 3, 1, 12, 40, 5};
        for (int round = 0; round < lengths.length; round++) {
            List<Integer> locals = new ArrayList<>();
            List<Integer> remotes = new ArrayList<>();
            for (int i = 0; i < Fixture.BLOCKS; i++) {
                locals.add(i);
                remotes.add(i);
            }
            Collections.shuffle(locals, random);
            Collections.shuffle(remotes, random);
            int n = lengths[round];
            int[] local = locals.subList(0, n).stream().mapToInt(Integer::intValue).toArray();
            int[] remote = remotes.subList(0, n).stream().mapToInt(Integer::intValue).toArray();
            if (round % 2 == 0) {
                Arrays.sort(local);
                Arrays.sort(remote);
            }
            long id = fx.write(t, "a", local, remote);
            fx.assertAllDone(fx.await(t, "a", List.of(id)));
            Set<Integer> written = new HashSet<>();
            for (int r : remote) {
                written.add(r);
            }
            fx.assertWritten(a, local, remote, "transfer " + id + " of " + n + " blocks");
            fx.assertUntouched(a, written, "beside transfer " + id + " of " + n + " blocks, after one of "
                    + (round == 0 ? 0 : lengths[round - 1]));
            for (int r : remote) {
                a.fill(r, BlockPattern.seed(Fixture.TARGET, r));
            }
        }
        allocatesNothingPerBlock(fx, t, "a");
    }

    /**
     * W9's allocation: submitting with writeBlocks and polling with a handler until reported, a
     * WRITE of 32 scattered blocks (no two contiguous on either side) allocates on the calling
     * thread no more than a one-block WRITE, by the JVM's count of the thread's allocated bytes
     * (where it has one): the least difference per transfer of three interleaved rounds (up to 500
     * transfers or 300 ms each, after a round to warm up) must stay under a byte per extra block
     * (one object per block would be 16 or more).
     */
    private static void allocatesNothingPerBlock(Fixture fx, DataTransport t, String peer) {
        if (!(ManagementFactory.getThreadMXBean() instanceof ThreadMXBean threads)
                || !threads.isThreadAllocatedMemorySupported()
                || !threads.isThreadAllocatedMemoryEnabled()) {
            return;
        }
        List<Integer> evens = new ArrayList<>();
        for (int i = 0; i < Fixture.BLOCKS; i += 2) {
            evens.add(i);
        }
        Collections.shuffle(evens, new Random(99));
        int[] scattered = evens.stream().mapToInt(Integer::intValue).toArray();
        int[] one = {1};
        long[] reported = new long[1];
        CompletionHandler handler = (id, ok) -> reported[0]++;
        double least = Double.MAX_VALUE;
        for (int round = 0; round < 4; round++) { // round 0 warms up
            double oneBytes = allocatedPerTransfer(fx, t, peer, one, handler, reported, threads);
            double manyBytes = allocatedPerTransfer(fx, t, peer, scattered, handler, reported, threads);
            if (round > 0) {
                least = Math.min(least, manyBytes - oneBytes);
            }
        }
        double perBlock = least / (scattered.length - 1);
        assertTrue(perBlock < 1.0, fx.msg(String.format(Locale.ROOT, "a WRITE of %d scattered blocks"
                + " allocated %.1f bytes per transfer more than a one-block WRITE on the submitting and polling"
                + " thread (%.2f per extra block, least of three rounds): something is allocated per block",
                scattered.length, least, perBlock)));
    }

    /**
     * Bytes this thread allocated per WRITE of {@code blocks}, submitted and polled until reported
     * one after another, 500 of them or as many as 300 ms allow (at least one).
     */
    private static double allocatedPerTransfer(Fixture fx, DataTransport t, String peer, int[] blocks,
            CompletionHandler handler, long[] reported, ThreadMXBean threads) {
        long thread = Thread.currentThread().threadId();
        long start = System.nanoTime();
        long deadline = start + fx.env.timeout().toNanos();
        long before = threads.getThreadAllocatedBytes(thread);
        int done = 0;
        while (done < 500 && (done == 0 || System.nanoTime() - start < 300_000_000L)) {
            long want = reported[0] + 1;
            if (t.writeBlocks(peer, blocks, blocks) == DataTransport.NOT_SUBMITTED) {
                fail(fx.msg("peer '" + peer + "' is not registered"));
            }
            while (reported[0] < want) {
                t.poll(peer, handler);
                if (System.nanoTime() - deadline > 0) {
                    fail(fx.msg("a WRITE of " + blocks.length + " blocks was not reported within "
                            + fx.env.timeout().toMillis() + " ms"));
                }
            }
            done++;
        }
        return (double) (threads.getThreadAllocatedBytes(thread) - before) / done;
    }

    @RuleTest(W10)
    public final void w10_twoPeersSameIndices() {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        TargetPeer b = fx.connectedTarget(t, "b");
        List<Long> aIds = new ArrayList<>();
        List<Long> bIds = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            aIds.add(fx.write(t, "a", i, 10 + i));
            bIds.add(fx.write(t, "b", 20 + i, 10 + i));
        }
        long aRun = fx.write(t, "a", Fixture.range(40, 4), Fixture.range(30, 4));
        long bRun = fx.write(t, "b", Fixture.range(50, 4), Fixture.range(30, 4));
        aIds.add(aRun);
        bIds.add(bRun);
        fx.assertAllDone(fx.await(t, "a", aIds));
        fx.assertAllDone(fx.await(t, "b", bIds));
        Set<Integer> written = new HashSet<>();
        for (int i = 0; i < 8; i++) {
            fx.assertTargetBlock(a, 10 + i, BlockPattern.seed(Fixture.LOCAL, i), "peer a, transfer " + aIds.get(i));
            fx.assertTargetBlock(b, 10 + i, BlockPattern.seed(Fixture.LOCAL, 20 + i), "peer b, transfer "
                    + bIds.get(i));
            written.add(10 + i);
        }
        fx.assertWritten(a, Fixture.range(40, 4), Fixture.range(30, 4), "peer a, transfer " + aRun);
        fx.assertWritten(b, Fixture.range(50, 4), Fixture.range(30, 4), "peer b, transfer " + bRun);
        for (int r = 30; r < 34; r++) {
            written.add(r);
        }
        fx.assertUntouched(a, written, "peer a beside its transfers");
        fx.assertUntouched(b, written, "peer b beside its transfers");
    }

    @RuleTest(W11)
    public final void w11_arraysReusable() {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        boolean held = fx.canHold(a);
        if (held) {
            fx.stall(a);
        }
        int[] local = {5, 6, 7};
        int[] remote = {20, 21, 22};
        long first = fx.write(t, "a", local, remote);
        local[0] = 8;
        local[1] = 9;
        local[2] = 10;
        remote[0] = 23;
        remote[1] = 24;
        remote[2] = 25;
        long second = fx.write(t, "a", local, remote);
        Arrays.fill(local, 0);
        Arrays.fill(remote, 0);
        if (held) {
            PollResult r = fx.poll(t, "a");
            assertEquals(PollResult.EMPTY, r, fx.msg("transfers reported while their target was stalled: " + r));
            fx.thaw(a);
        }
        fx.assertAllDone(fx.await(t, "a", List.of(first, second)));
        fx.assertWritten(a, new int[] {5, 6, 7}, new int[] {20, 21, 22}, "transfer " + first
                + " whose index arrays the caller reused");
        fx.assertWritten(a, new int[] {8, 9, 10}, new int[] {23, 24, 25}, "transfer " + second
                + " whose index arrays the caller reused");
        fx.assertUntouched(a, Set.of(20, 21, 22, 23, 24, 25), "beside the transfers");
    }

    @RuleTest(W12)
    public final void w12_doneOnlyWhenLanded() {
        Fixture fx = fx();
        int blocks = 32;
        long blockLength = 2L << 20;
        DataTransport t = fx.initiator(fx.config(blocks, blockLength, fx.env.timeout().multipliedBy(3)));
        TargetPeer a = fx.target(fx.config(blocks, blockLength, fx.env.timeout().multipliedBy(3)));
        t.addPeer("a", a.descriptor());
        for (int round = 0; round < 4; round++) {
            int[] local = new int[blocks];
            int[] remote = new int[blocks];
            for (int i = 0; i < blocks; i++) {
                local[i] = i;
                remote[i] = (i * 5 + round * 3) % blocks; // no two neighbours contiguous: one copy per block
            }
            long id = fx.write(t, "a", local, remote);
            Set<Long> pending = new HashSet<>(List.of(id));
            Map<Long, Boolean> out = new LinkedHashMap<>();
            long deadline = System.nanoTime() + fx.env.timeout().toNanos();
            while (!pending.isEmpty()) {
                fx.record(fx.poll(t, "a"), pending, out, "a");
                if (!pending.isEmpty() && System.nanoTime() - deadline > 0) {
                    fail(fx.msg("transfer " + id + " not reported within " + fx.env.timeout().toMillis() + " ms"));
                }
            }
            fx.assertAllDone(out);
            for (int i = blocks - 1; i >= 0; i--) { // the last block of the transfer first: it lands last
                long at = a.firstMismatch(remote[i], BlockPattern.seed(Fixture.LOCAL, local[i]));
                if (at >= 0) {
                    fail(fx.msg("transfer " + id + " was reported done before its bytes landed: block " + remote[i]
                            + " (pair " + i + " of " + blocks + ") differs at byte " + at + " right after the report"));
                }
            }
            for (int i = 0; i < blocks; i++) {
                a.fill(remote[i], BlockPattern.seed(Fixture.TARGET, remote[i]));
            }
        }
    }

    /**
     * The step between two ids of consecutive submits, so a rule can check that calls in between
     * took none.
     */
    record IdGap(long last, long step) {

        static IdGap measure(Fixture fx, DataTransport t, String peer) {
            long a = fx.write(t, peer, 0, 0);
            long b = fx.write(t, peer, 1, 1);
            fx.assertAllDone(fx.await(t, peer, List.of(a, b)));
            if (b <= a) {
                fail(fx.msg("id " + b + " after " + a + " is not increasing"));
            }
            return new IdGap(b, b - a);
        }

        void assertNextFollows(Fixture fx, DataTransport t, String peer, String what) {
            long next = fx.write(t, peer, 2, 2);
            fx.assertAllDone(fx.await(t, peer, List.of(next)));
            assertEquals(last + step, next, fx.msg("the id after " + what + " is " + next + ", not " + (last + step)
                    + " (ids " + (last - step) + ", " + last + " before them): a rejected call consumed an id"));
        }
    }
}
