package io.blockxfer.tck;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.blockxfer.transport.CancelMode;
import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.IncompatiblePeerException;
import io.blockxfer.transport.MalformedPeerDescriptorException;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.RegistrationSupersededException;
import io.blockxfer.transport.TransportException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * The blockxfer conformance kit. A backend certifies itself with a one-line subclass:
 *
 * <pre>{@code
 * class UcxConformanceTest extends TransportConformanceSuite {
 *     protected TckHarness harness() { return InJvmHarness.of("ucx"); }
 * }
 * }</pre>
 *
 * <p>Every rule has an id shown in its display name and in every assertion message
 * ({@code [W2] ucx (in-jvm): ...}); {@link ConformanceRules} explains each and what to check when it
 * fails. Test methods are final. A rule whose capability the backend lacks is skipped with the
 * reason, and the documented refusal is checked by its own rule instead. A backend that is
 * unavailable here is skipped with its cause, unless {@code blockxfer.tck.require} names it; then
 * every rule fails. Settings come from {@link TckEnvironment}.
 *
 * <p><b>Thread safety:</b> JUnit creates one instance per rule; instances are not shared.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
public abstract class TransportConformanceSuite {

    private final TckEnvironment env = TckEnvironment.fromSystem();
    private Fixture fx;

    /** The harness that supplies this backend's transports. */
    protected abstract TckHarness harness();

    @BeforeEach
    final void openFixture(TestInfo info) {
        TckHarness harness = harness();
        String name = info.getDisplayName();
        String rule = name.startsWith("[") ? name.substring(1, name.indexOf(']')) : name;
        if (!harness.availability().isAvailable()) {
            String cause = harness.backend() + " is unavailable: " + harness.availability().cause();
            if (env.requires(harness.backend())) {
                fail("[" + rule + "] " + cause + " (required by blockxfer.tck.require)",
                        harness.availability().error().orElse(null));
            }
            Assumptions.abort(cause);
        }
        fx = new Fixture(harness, env, rule);
    }

    @AfterEach
    final void closeFixture() {
        if (fx != null) {
            fx.close();
        }
    }

    private void require(Capability capability) {
        Assumptions.assumeTrue(fx.has(capability),
                () -> fx.msg("skipped: the backend does not declare " + capability));
    }

    private static int[] range(int from, int count) {
        return java.util.stream.IntStream.range(from, from + count).toArray();
    }

    // =========================================================== G: geometry and descriptor

    @Test
    @DisplayName("[G1] the region, fingerprint and descriptor describe the configured transport")
    public final void g1_geometry() {
        var config = fx.config();
        DataTransport t = fx.initiator(config);
        assertEquals(fx.backend(), t.backendName(), fx.msg("backendName"));
        assertEquals(Fixture.BLOCKS, t.region().numBlocks(), fx.msg("numBlocks"));
        assertEquals(Fixture.BLOCK_LENGTH, t.region().blockLength(), fx.msg("blockLength"));
        assertEquals(Fixture.BLOCKS * Fixture.BLOCK_LENGTH, t.region().segment().byteSize(), fx.msg("region size"));
        assertEquals(config.fingerprint(), t.configFingerprint(), fx.msg("configFingerprint"));
        assertEquals("e66978b6d0f4f4e6", t.configFingerprint(), fx.msg("fingerprint of the TCK's fields"));
        PeerDescriptor d = t.localDescriptor();
        assertEquals(fx.backend(), d.backend(), fx.msg("descriptor backend"));
        assertEquals(t.region().baseAddress(), d.baseAddress(), fx.msg("descriptor base address"));
        assertEquals(Fixture.BLOCKS, d.numBlocks(), fx.msg("descriptor block count"));
        assertEquals(Fixture.BLOCK_LENGTH, d.blockLength(), fx.msg("descriptor block length"));
        assertEquals(t.configFingerprint(), d.fingerprint(), fx.msg("descriptor fingerprint"));
        assertArrayEquals(t.agentMetadata(), d.metadata(), fx.msg("descriptor metadata"));
    }

    @Test
    @DisplayName("[G2] the descriptor survives encode and decode, and a decoded copy registers")
    public final void g2_descriptorRoundTrip() {
        DataTransport t = fx.initiator();
        TargetPeer target = fx.target();
        PeerDescriptor decoded = PeerDescriptor.decode(target.descriptor().encode());
        assertEquals(target.descriptor(), decoded, fx.msg("decode(encode(d)) != d"));
        t.addPeer("a", decoded);
        long id = fx.submit(t, true, "a", new int[] {3}, new int[] {5});
        fx.assertAllDone(fx.await(t, "a", List.of(id)));
        fx.assertTargetBlock(target, 5, BlockPattern.seed(Fixture.LOCAL, 3), "transfer " + id);
    }

    // =========================================================== P: peers

    @Test
    @DisplayName("[P1] a transfer to an unknown peer is not submitted, and nothing is reported")
    public final void p1_unknownPeer() {
        DataTransport t = fx.initiator();
        assertEquals(DataTransport.NOT_SUBMITTED, t.writeBlocks("nobody", new int[] {0}, new int[] {0}),
                fx.msg("write to an unknown peer"));
        if (fx.has(Capability.READ)) {
            assertEquals(DataTransport.NOT_SUBMITTED, t.readBlocks("nobody", new int[] {0}, new int[] {0}),
                    fx.msg("read from an unknown peer"));
        }
        assertSame(PollResult.EMPTY, t.poll("nobody"), fx.msg("poll of an unknown peer"));
        assertSame(PollResult.EMPTY, t.pollAll(), fx.msg("pollAll with no transfers"));
    }

    @Test
    @DisplayName("[P2] a peer with another block length is rejected with a typed error and not registered")
    public final void p2_blockLengthMismatch() {
        DataTransport t = fx.initiator();
        TargetPeer other = fx.target(fx.config(Fixture.BLOCKS, Fixture.BLOCK_LENGTH * 2, fx.env.timeout()));
        var e = assertThrows(IncompatiblePeerException.class, () -> t.addPeer("a", other.descriptor()),
                fx.msg("block length mismatch accepted"));
        assertTrue(e.getMessage().contains("block length"), fx.msg("message should name the block length: " + e));
        assertEquals(DataTransport.NOT_SUBMITTED, t.writeBlocks("a", new int[] {0}, new int[] {0}),
                fx.msg("a rejected peer was registered"));
    }

    @Test
    @DisplayName("[P3] a peer with another config fingerprint or backend is rejected with a typed error")
    public final void p3_fingerprintAndBackendMismatch() {
        DataTransport t = fx.initiator();
        PeerDescriptor d = fx.target().descriptor();
        PeerDescriptor otherFingerprint = Fixture.with(d, d.backend(), "0123456789abcdef", d.baseAddress(),
                d.numBlocks(), d.blockLength(), d.metadata());
        var e = assertThrows(IncompatiblePeerException.class, () -> t.addPeer("a", otherFingerprint),
                fx.msg("fingerprint mismatch accepted"));
        assertTrue(e.getMessage().contains("fingerprint"), fx.msg("message should name the fingerprint: " + e));
        PeerDescriptor otherBackend = Fixture.with(d, d.backend() + "-other", d.fingerprint(), d.baseAddress(),
                d.numBlocks(), d.blockLength(), d.metadata());
        assertThrows(IncompatiblePeerException.class, () -> t.addPeer("a", otherBackend),
                fx.msg("backend mismatch accepted"));
        assertEquals(DataTransport.NOT_SUBMITTED, t.writeBlocks("a", new int[] {0}, new int[] {0}),
                fx.msg("a rejected peer was registered"));
    }

    @Test
    @DisplayName("[P4] a removed peer takes no transfers; removing an unknown peer is a no-op")
    public final void p4_removePeer() {
        DataTransport t = fx.initiator();
        fx.connectedTarget(t, "a");
        assertTrue(t.removePeer("a"), fx.msg("removePeer of a registered peer returned false"));
        assertEquals(DataTransport.NOT_SUBMITTED, t.writeBlocks("a", new int[] {0}, new int[] {0}),
                fx.msg("write after removePeer"));
        assertFalse(t.removePeer("a"), fx.msg("second removePeer returned true"));
        assertFalse(t.removePeer("never-added"), fx.msg("removePeer of an unknown peer returned true"));
        assertSame(PollResult.EMPTY, t.poll("a"), fx.msg("poll after removing an idle peer"));
    }

    @Test
    @DisplayName("[P5] removing a peer ends exactly its own transfers, each reported once; others complete")
    public final void p5_removeDrainsOnlyThatPeer() {
        DataTransport t = fx.initiator();
        fx.connectedTarget(t, "a");
        TargetPeer b = fx.connectedTarget(t, "b");
        List<Long> aIds = new ArrayList<>();
        List<Long> bIds = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            aIds.add(fx.submit(t, true, "a", range(0, 32), range(32, 32)));
            bIds.add(fx.submit(t, true, "b", new int[] {i}, new int[] {i}));
        }
        assertTrue(t.removePeer("a"), fx.msg("removePeer"));
        fx.await(t, "a", aIds);
        fx.assertAllDone(fx.await(t, "b", bIds));
        for (int i = 0; i < 32; i++) {
            fx.assertTargetBlock(b, i, BlockPattern.seed(Fixture.LOCAL, i), "peer b after removing peer a");
        }
        assertSame(PollResult.EMPTY, t.pollAll(), fx.msg("reports left after both peers were drained"));
    }

    @Test
    @DisplayName("[P6] re-adding a live peer replaces its registration; old transfers are reported once")
    public final void p6_reAddReplaces() {
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        List<Long> old = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            old.add(fx.submit(t, true, "a", new int[] {i}, new int[] {i}));
        }
        t.addPeer("a", a.descriptor());
        long fresh = fx.submit(t, true, "a", new int[] {40}, new int[] {41});
        List<Long> all = new ArrayList<>(old);
        all.add(fresh);
        Map<Long, Boolean> outcomes = fx.await(t, "a", all);
        assertTrue(outcomes.get(fresh), fx.msg("transfer " + fresh + " after re-adding failed"));
        fx.assertTargetBlock(a, 41, BlockPattern.seed(Fixture.LOCAL, 40), "transfer " + fresh);
    }

    @Test
    @DisplayName("[P7] an asynchronous registration completes its future, and the peer takes transfers")
    public final void p7_addPeerAsync() throws Exception {
        DataTransport t = fx.initiator();
        TargetPeer a = fx.target();
        CompletableFuture<Void> f = t.addPeerAsync("a", a.descriptor());
        f.get(fx.env.timeout().toMillis(), TimeUnit.MILLISECONDS);
        long id = fx.submit(t, true, "a", new int[] {7}, new int[] {9});
        fx.assertAllDone(fx.await(t, "a", List.of(id)));
        fx.assertTargetBlock(a, 9, BlockPattern.seed(Fixture.LOCAL, 7), "transfer " + id);
    }

    @Test
    @DisplayName("[P8] a registration superseded by a remove never publishes and fails with a distinct error")
    public final void p8_supersededRegistration() throws Exception {
        DataTransport t = fx.initiator();
        TargetPeer a = fx.target();
        int superseded = 0;
        for (int i = 0; i < 20; i++) {
            CompletableFuture<Void> f = t.addPeerAsync("a", a.descriptor());
            t.removePeer("a");
            try {
                f.get(fx.env.timeout().toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                assertTrue(e.getCause() instanceof RegistrationSupersededException,
                        fx.msg("a superseded registration failed with " + e.getCause()));
                superseded++;
            }
            assertEquals(DataTransport.NOT_SUBMITTED, t.writeBlocks("a", new int[] {0}, new int[] {0}),
                    fx.msg("round " + i + ": a registration published after its peer was removed"));
        }
        // two adds in a row: the first is superseded unless it finished first; the second wins
        CompletableFuture<Void> first = t.addPeerAsync("a", a.descriptor());
        CompletableFuture<Void> second = t.addPeerAsync("a", a.descriptor());
        second.get(fx.env.timeout().toMillis(), TimeUnit.MILLISECONDS);
        try {
            first.get(fx.env.timeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            assertTrue(e.getCause() instanceof RegistrationSupersededException,
                    fx.msg("the superseded first add failed with " + e.getCause()));
        }
        long id = fx.submit(t, true, "a", new int[] {1}, new int[] {2});
        fx.assertAllDone(fx.await(t, "a", List.of(id)));
        assertTrue(superseded >= 0, fx.msg("superseded count"));
    }

    // =========================================================== W: writes

    @Test
    @DisplayName("[W1] a one-block WRITE lands byte for byte and leaves other blocks alone")
    public final void w1_singleBlockWrite() {
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        long id = fx.submit(t, true, "a", new int[] {5}, new int[] {11});
        fx.assertAllDone(fx.await(t, "a", List.of(id)));
        fx.assertTargetBlock(a, 11, BlockPattern.seed(Fixture.LOCAL, 5), "transfer " + id);
        fx.assertTargetBlock(a, 10, BlockPattern.seed(Fixture.TARGET, 10), "neighbour of transfer " + id);
        fx.assertTargetBlock(a, 12, BlockPattern.seed(Fixture.TARGET, 12), "neighbour of transfer " + id);
        fx.assertLocalBlock(t, 5, BlockPattern.seed(Fixture.LOCAL, 5), "source of transfer " + id);
    }

    @Test
    @DisplayName("[W2] a batch WRITE of shuffled blocks lands each block where its index says")
    public final void w2_batchWrite() {
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        Random random = new Random(42);
        List<Integer> remote = new ArrayList<>();
        for (int i = 0; i < Fixture.BLOCKS; i++) {
            remote.add(i);
        }
        java.util.Collections.shuffle(remote, random);
        int[] local = new int[48];
        int[] rem = new int[48];
        for (int i = 0; i < 48; i++) {
            local[i] = (i * 7) % Fixture.BLOCKS;
            rem[i] = remote.get(i);
        }
        long id = fx.submit(t, true, "a", local, rem);
        fx.assertAllDone(fx.await(t, "a", List.of(id)));
        Set<Integer> written = new HashSet<>();
        for (int i = 0; i < 48; i++) {
            fx.assertTargetBlock(a, rem[i], BlockPattern.seed(Fixture.LOCAL, local[i]), "transfer " + id + " pair " + i);
            written.add(rem[i]);
        }
        for (int b = 0; b < Fixture.BLOCKS; b++) {
            if (!written.contains(b)) {
                fx.assertTargetBlock(a, b, BlockPattern.seed(Fixture.TARGET, b), "block outside transfer " + id);
            }
        }
    }

    @Test
    @DisplayName("[W3] contiguous runs, reversed runs and repeated sources land correctly")
    public final void w3_runs() {
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        long run = fx.submit(t, true, "a", range(0, 16), range(16, 16));
        int[] reversed = range(16, 16);
        for (int i = 0; i < 8; i++) {
            int x = reversed[i];
            reversed[i] = reversed[15 - i];
            reversed[15 - i] = x;
        }
        long rev = fx.submit(t, true, "a", reversed, range(32, 16));
        long repeat = fx.submit(t, true, "a", new int[] {3, 3, 3}, new int[] {60, 61, 62});
        fx.assertAllDone(fx.await(t, "a", List.of(run, rev, repeat)));
        for (int i = 0; i < 16; i++) {
            fx.assertTargetBlock(a, 16 + i, BlockPattern.seed(Fixture.LOCAL, i), "run transfer " + run);
            fx.assertTargetBlock(a, 32 + i, BlockPattern.seed(Fixture.LOCAL, reversed[i]), "reversed transfer " + rev);
        }
        for (int b = 60; b <= 62; b++) {
            fx.assertTargetBlock(a, b, BlockPattern.seed(Fixture.LOCAL, 3), "repeated-source transfer " + repeat);
        }
    }

    @Test
    @DisplayName("[W4] many WRITEs in flight at once all complete and land")
    public final void w4_manyInFlight() {
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 256; i++) {
            ids.add(fx.submit(t, true, "a", new int[] {i % Fixture.BLOCKS}, new int[] {(i * 5) % Fixture.BLOCKS}));
        }
        fx.assertAllDone(fx.await(t, "a", ids));
        for (int i = Fixture.BLOCKS * 3; i < 256; i++) {
            fx.assertTargetBlock(a, (i * 5) % Fixture.BLOCKS, BlockPattern.seed(Fixture.LOCAL, i % Fixture.BLOCKS),
                    "transfer " + ids.get(i));
        }
    }

    @Test
    @DisplayName("[W5] empty or unequal index arrays are rejected with IllegalArgumentException; nothing changes")
    public final void w5_badArrays() {
        DataTransport t = fx.initiator();
        fx.connectedTarget(t, "a");
        var empty = assertThrows(IllegalArgumentException.class, () -> t.writeBlocks("a", new int[0], new int[0]),
                fx.msg("empty transfer accepted"));
        assertTrue(empty.getMessage().contains("empty"), fx.msg("message should say empty: " + empty.getMessage()));
        var unequal = assertThrows(IllegalArgumentException.class,
                () -> t.writeBlocks("a", new int[] {1, 2}, new int[] {1}), fx.msg("unequal arrays accepted"));
        assertTrue(unequal.getMessage().contains("2") && unequal.getMessage().contains("1"),
                fx.msg("message should give both lengths: " + unequal.getMessage()));
        fx.assertNothingReported(t, "a");
        long id = fx.submit(t, true, "a", new int[] {0}, new int[] {0});
        assertEquals(Set.of(id), fx.await(t, "a", List.of(id)).keySet(), fx.msg("state after rejected calls"));
    }

    @Test
    @DisplayName("[W6] out-of-range indices on either side are rejected before any byte moves")
    public final void w6_outOfRange() {
        DataTransport t = fx.initiator();
        TargetPeer small = fx.target(fx.config(16, Fixture.BLOCK_LENGTH, fx.env.timeout()));
        t.addPeer("small", small.descriptor());
        int[][][] bad = {
            {{-1}, {0}}, {{Fixture.BLOCKS}, {0}}, {{0}, {-1}}, {{0}, {16}}, {{0, 1, 2}, {0, 1, 16}},
            {{0}, {Fixture.BLOCKS}}, {{Integer.MIN_VALUE}, {0}}, {{0}, {Integer.MAX_VALUE}},
        };
        for (int[][] pair : bad) {
            var e = assertThrows(IllegalArgumentException.class, () -> t.writeBlocks("small", pair[0], pair[1]),
                    fx.msg("indices " + Arrays.toString(pair[0]) + " -> " + Arrays.toString(pair[1]) + " accepted"));
            assertTrue(e.getMessage().contains("out of range"), fx.msg("message should say out of range: " + e));
            if (fx.has(Capability.READ)) {
                assertThrows(IllegalArgumentException.class, () -> t.readBlocks("small", pair[0], pair[1]),
                        fx.msg("READ indices " + Arrays.toString(pair[0]) + " <- " + Arrays.toString(pair[1])
                                + " accepted"));
            }
        }
        fx.assertNothingReported(t, "small");
        for (int b = 0; b < 16; b++) {
            fx.assertTargetBlock(small, b, BlockPattern.seed(Fixture.TARGET, b), "after rejected transfers");
        }
    }

    @Test
    @DisplayName("[W7] null arguments are rejected with NullPointerException naming the argument")
    public final void w7_nulls() {
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        expectNull("peerId", () -> t.writeBlocks(null, new int[] {0}, new int[] {0}));
        expectNull("localBlocks", () -> t.writeBlocks("a", null, new int[] {0}));
        expectNull("remoteBlocks", () -> t.writeBlocks("a", new int[] {0}, null));
        expectNull("peerId", () -> t.poll((String) null));
        expectNull("ids", () -> t.cancel(null, CancelMode.WAIT));
        expectNull("mode", () -> t.cancel(new long[] {1}, null));
        expectNull("peerId", () -> t.addPeer(null, a.descriptor()));
        expectNull("peer", () -> t.addPeer("b", null));
        expectNull("peerId", () -> t.removePeer(null));
        fx.assertNothingReported(t, "a");
    }

    private void expectNull(String argument, Runnable call) {
        var e = assertThrows(NullPointerException.class, call::run, fx.msg("null " + argument + " accepted"));
        assertTrue(String.valueOf(e.getMessage()).contains(argument),
                fx.msg("message should name '" + argument + "': " + e.getMessage()));
    }

    // =========================================================== R: reads

    @Test
    @DisplayName("[R1] a one-block READ brings the peer's bytes into the local block")
    public final void r1_singleBlockRead() {
        require(Capability.READ);
        DataTransport t = fx.initiator();
        fx.connectedTarget(t, "a");
        long id = fx.submit(t, false, "a", new int[] {4}, new int[] {20});
        fx.assertAllDone(fx.await(t, "a", List.of(id)));
        fx.assertLocalBlock(t, 4, BlockPattern.seed(Fixture.TARGET, 20), "READ " + id);
        fx.assertLocalBlock(t, 5, BlockPattern.seed(Fixture.LOCAL, 5), "neighbour of READ " + id);
    }

    @Test
    @DisplayName("[R2] a batch READ of shuffled blocks lands each block where its index says")
    public final void r2_batchRead() {
        require(Capability.READ);
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        int[] local = range(0, 32);
        int[] remote = new int[32];
        for (int i = 0; i < 32; i++) {
            remote[i] = (i * 13 + 7) % Fixture.BLOCKS;
        }
        long id = fx.submit(t, false, "a", local, remote);
        fx.assertAllDone(fx.await(t, "a", List.of(id)));
        for (int i = 0; i < 32; i++) {
            fx.assertLocalBlock(t, i, BlockPattern.seed(Fixture.TARGET, remote[i]), "READ " + id + " pair " + i);
            fx.assertTargetBlock(a, remote[i], BlockPattern.seed(Fixture.TARGET, remote[i]), "source of READ " + id);
        }
        for (int b = 32; b < Fixture.BLOCKS; b++) {
            fx.assertLocalBlock(t, b, BlockPattern.seed(Fixture.LOCAL, b), "block outside READ " + id);
        }
    }

    @Test
    @DisplayName("[R3] without the READ capability, readBlocks is refused with UnsupportedOperationException")
    public final void r3_readRefusedWithoutCapability() {
        Assumptions.assumeFalse(fx.has(Capability.READ), () -> fx.msg("skipped: the backend supports READ"));
        DataTransport t = fx.initiator();
        fx.connectedTarget(t, "a");
        assertThrows(UnsupportedOperationException.class, () -> t.readBlocks("a", new int[] {0}, new int[] {0}),
                fx.msg("READ accepted without the READ capability"));
        fx.assertNothingReported(t, "a");
    }

    // =========================================================== C: completions and polls

    @Test
    @DisplayName("[C1] ids are unique and increasing across peers and operations")
    public final void c1_uniqueIds() {
        DataTransport t = fx.initiator();
        fx.connectedTarget(t, "a");
        fx.connectedTarget(t, "b");
        long last = -1;
        List<Long> a = new ArrayList<>();
        List<Long> b = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            boolean read = fx.has(Capability.READ) && i % 3 == 0;
            String peer = i % 2 == 0 ? "a" : "b";
            long id = fx.submit(t, !read, peer, new int[] {i % 32}, new int[] {i % 32});
            assertTrue(id > last, fx.msg("id " + id + " after " + last + " is not increasing"));
            last = id;
            (peer.equals("a") ? a : b).add(id);
        }
        fx.await(t, "a", a);
        fx.await(t, "b", b);
    }

    @Test
    @DisplayName("[C2] every transfer is reported exactly once; later polls return the shared empty result")
    public final void c2_exactlyOnce() {
        DataTransport t = fx.initiator();
        fx.connectedTarget(t, "a");
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            ids.add(fx.submit(t, true, "a", new int[] {i % Fixture.BLOCKS}, new int[] {(i + 1) % Fixture.BLOCKS}));
        }
        fx.assertAllDone(fx.await(t, "a", ids));
        for (int i = 0; i < 5; i++) {
            assertSame(PollResult.EMPTY, t.poll("a"), fx.msg("a poll after every transfer was reported"));
        }
        assertSame(PollResult.EMPTY, t.pollAll(), fx.msg("pollAll after every transfer was reported"));
    }

    @Test
    @DisplayName("[C3] poll(peer) reports only that peer's transfers and leaves the others for their own polls")
    public final void c3_scopedPoll() {
        DataTransport t = fx.initiator();
        fx.connectedTarget(t, "a");
        fx.connectedTarget(t, "b");
        List<Long> a = new ArrayList<>();
        List<Long> b = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            a.add(fx.submit(t, true, "a", new int[] {i % 32}, new int[] {i % 32}));
            b.add(fx.submit(t, true, "b", new int[] {i % 32}, new int[] {i % 32}));
        }
        fx.assertAllDone(fx.await(t, "a", a));
        long deadline = System.nanoTime() + Duration.ofMillis(200).toNanos();
        while (System.nanoTime() < deadline) {
            assertSame(PollResult.EMPTY, t.poll("a"), fx.msg("poll('a') reported after a was drained"));
        }
        fx.assertAllDone(fx.await(t, "b", b));
    }

    @Test
    @DisplayName("[C4] pollAll reports every peer's transfers, each once")
    public final void c4_pollAll() {
        DataTransport t = fx.initiator();
        fx.connectedTarget(t, "a");
        fx.connectedTarget(t, "b");
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            ids.add(fx.submit(t, true, i % 2 == 0 ? "a" : "b", new int[] {i}, new int[] {i}));
        }
        fx.assertAllDone(fx.await(t, null, ids));
        assertSame(PollResult.EMPTY, t.poll("a"), fx.msg("poll('a') after pollAll drained everything"));
        assertSame(PollResult.EMPTY, t.poll("b"), fx.msg("poll('b') after pollAll drained everything"));
    }

    @Test
    @DisplayName("[C5] the handler form of poll reports the same transfers, each once")
    public final void c5_handlerPoll() {
        DataTransport t = fx.initiator();
        fx.connectedTarget(t, "a");
        Set<Long> pending = new HashSet<>();
        for (int i = 0; i < 64; i++) {
            pending.add(fx.submit(t, true, "a", new int[] {i}, new int[] {63 - i}));
        }
        Set<Long> seen = new HashSet<>();
        long deadline = System.nanoTime() + fx.env.timeout().toNanos();
        while (!pending.isEmpty() && System.nanoTime() < deadline) {
            int n = t.poll("a", (id, ok) -> {
                assertTrue(seen.add(id), fx.msg("handler saw transfer " + id + " twice"));
                assertTrue(pending.remove(id), fx.msg("handler saw unknown transfer " + id));
                assertTrue(ok, fx.msg("transfer " + id + " failed"));
            });
            assertTrue(n >= 0, fx.msg("negative count"));
        }
        assertTrue(pending.isEmpty(), fx.msg("not reported through the handler: " + pending));
        assertEquals(0, t.poll("a", (id, ok) -> fail(fx.msg("extra report of " + id))), fx.msg("count"));
    }

    // =========================================================== X: cancel

    @Test
    @DisplayName("[X1] an immediate cancel stops every report of the cancelled ids and returns nothing")
    public final void x1_cancelImmediate() {
        DataTransport t = fx.initiator();
        fx.connectedTarget(t, "a");
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            ids.add(fx.submit(t, true, "a", range(0, 32), range(32, 32)));
        }
        long[] cancelled = ids.subList(0, 32).stream().mapToLong(Long::longValue).toArray();
        assertEquals(0, t.cancel(cancelled, CancelMode.IMMEDIATE).length, fx.msg("immediate cancel returned ids"));
        Map<Long, Boolean> rest = fx.await(t, "a", ids.subList(32, 64));
        assertEquals(32, rest.size(), fx.msg("uncancelled transfers"));
        long end = System.nanoTime() + Duration.ofMillis(300).toNanos();
        while (System.nanoTime() < end) {
            PollResult r = t.poll("a");
            assertSame(PollResult.EMPTY, r, fx.msg("a cancelled transfer was reported: " + r));
        }
        long after = fx.submit(t, true, "a", new int[] {1}, new int[] {1});
        fx.assertAllDone(fx.await(t, "a", List.of(after)));
    }

    @Test
    @DisplayName("[X2] a wait cancel returns exactly the ids still in flight; those and only those are reported later")
    public final void x2_cancelWait() {
        DataTransport t = fx.initiator();
        fx.connectedTarget(t, "a");
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            ids.add(fx.submit(t, true, "a", range(0, 32), range(32, 32)));
        }
        long[] asked = ids.stream().mapToLong(Long::longValue).toArray();
        long[] still = t.cancel(asked, CancelMode.WAIT);
        Set<Long> stillSet = new HashSet<>();
        for (long id : still) {
            assertTrue(ids.contains(id), fx.msg("wait cancel returned foreign id " + id));
            assertTrue(stillSet.add(id), fx.msg("wait cancel returned id " + id + " twice"));
        }
        fx.await(t, "a", stillSet);
        long end = System.nanoTime() + Duration.ofMillis(300).toNanos();
        while (System.nanoTime() < end) {
            PollResult r = t.poll("a");
            assertSame(PollResult.EMPTY, r, fx.msg("a transfer released by the wait cancel was reported: " + r));
        }
    }

    @Test
    @DisplayName("[X3] cancelling unknown or already reported ids is ignored in both modes")
    public final void x3_cancelUnknown() {
        DataTransport t = fx.initiator();
        fx.connectedTarget(t, "a");
        long id = fx.submit(t, true, "a", new int[] {0}, new int[] {0});
        fx.await(t, "a", List.of(id));
        assertEquals(0, t.cancel(new long[] {id, 999_999, -5}, CancelMode.WAIT).length, fx.msg("wait mode"));
        assertEquals(0, t.cancel(new long[] {id, 999_999, -5}, CancelMode.IMMEDIATE).length, fx.msg("immediate"));
        assertEquals(0, t.cancel(new long[0], CancelMode.WAIT).length, fx.msg("empty array"));
        long next = fx.submit(t, true, "a", new int[] {1}, new int[] {1});
        fx.assertAllDone(fx.await(t, "a", List.of(next)));
    }

    @Test
    @DisplayName("[X4] a wait cancel of a transfer to a stalled peer returns it; it is reported after the thaw")
    public final void x4_cancelWaitStalled() {
        require(Capability.FAULT_INJECTION);
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        Assumptions.assumeTrue(a.canStall(), () -> fx.msg("skipped: targets cannot be stalled in this harness"));
        a.stall(true);
        long id = fx.submit(t, true, "a", new int[] {2}, new int[] {3});
        LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
        assertArrayEquals(new long[] {id}, t.cancel(new long[] {id}, CancelMode.WAIT),
                fx.msg("wait cancel of stalled transfer " + id));
        assertSame(PollResult.EMPTY, t.poll("a"), fx.msg("stalled transfer reported while stalled"));
        a.stall(false);
        fx.assertAllDone(fx.await(t, "a", List.of(id)));
        fx.assertTargetBlock(a, 3, BlockPattern.seed(Fixture.LOCAL, 2), "transfer " + id + " after the thaw");
    }

    // =========================================================== F: failures and deadlines

    @Test
    @DisplayName("[F1] when a peer dies, its transfers end within the deadline and other peers are unaffected")
    public final void f1_peerDeath() {
        DataTransport t = fx.initiator(fx.config(Fixture.BLOCKS, Fixture.BLOCK_LENGTH, fx.env.deadline()));
        TargetPeer a = fx.connectedTarget(t, "a");
        TargetPeer b = fx.connectedTarget(t, "b");
        List<Long> aIds = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            aIds.add(fx.submit(t, true, "a", range(0, 32), range(32, 32)));
        }
        a.kill();
        long killedAt = System.nanoTime();
        for (int i = 0; i < 8; i++) {
            long id = t.writeBlocks("a", new int[] {i}, new int[] {i});
            if (id != DataTransport.NOT_SUBMITTED) {
                aIds.add(id);
            }
        }
        Duration bound = fx.env.deadline().plus(fx.env.deadline()).plusSeconds(2);
        fx.await(t, "a", aIds, bound);
        long tookMillis = (System.nanoTime() - killedAt) / 1_000_000;
        assertTrue(tookMillis <= bound.toMillis(), fx.msg("dead peer's transfers took " + tookMillis + " ms"));
        long id = fx.submit(t, true, "b", new int[] {9}, new int[] {10});
        fx.assertAllDone(fx.await(t, "b", List.of(id)));
        fx.assertTargetBlock(b, 10, BlockPattern.seed(Fixture.LOCAL, 9), "surviving peer after another died");
    }

    @Test
    @DisplayName("[F2] a stalled peer's transfers are failed at the deadline; the peer can be re-added after")
    public final void f2_stallDeadline() {
        require(Capability.FAULT_INJECTION);
        DataTransport t = fx.initiator(fx.config(Fixture.BLOCKS, Fixture.BLOCK_LENGTH, fx.env.deadline()));
        TargetPeer a = fx.connectedTarget(t, "a");
        Assumptions.assumeTrue(a.canStall(), () -> fx.msg("skipped: targets cannot be stalled in this harness"));
        a.stall(true);
        long start = System.nanoTime();
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            ids.add(fx.submit(t, true, "a", new int[] {i}, new int[] {i}));
        }
        Map<Long, Boolean> outcomes = fx.await(t, "a", ids, fx.env.deadline().plusSeconds(3));
        long tookMillis = (System.nanoTime() - start) / 1_000_000;
        outcomes.forEach((id, ok) -> assertFalse(ok, fx.msg("stalled transfer " + id + " reported done")));
        assertTrue(tookMillis >= fx.env.deadline().toMillis() - 50,
                fx.msg("stalled transfers failed after " + tookMillis + " ms, before the deadline"));
        a.stall(false);
        t.addPeer("a", a.descriptor());
        long id = fx.submit(t, true, "a", new int[] {12}, new int[] {13});
        fx.assertAllDone(fx.await(t, "a", List.of(id)));
        fx.assertTargetBlock(a, 13, BlockPattern.seed(Fixture.LOCAL, 12), "transfer after re-adding");
    }

    // =========================================================== M: untrusted metadata

    @Test
    @DisplayName("[M1] malformed descriptor blobs raise only MalformedPeerDescriptorException or a typed rejection")
    public final void m1_malformedBlobs() {
        DataTransport t = fx.initiator();
        TargetPeer a = fx.target();
        byte[] good = a.descriptor().encode();
        Random random = new Random(7);
        int decoded = 0;
        for (int i = 0; i < fx.env.fuzzIterations(); i++) {
            byte[] blob = mutate(good, random, i);
            PeerDescriptor d;
            try {
                d = PeerDescriptor.decode(blob);
            } catch (MalformedPeerDescriptorException expected) {
                continue;
            } catch (RuntimeException e) {
                throw new AssertionError(fx.msg("decode of mutated blob " + i + " threw " + e), e);
            }
            decoded++;
            try {
                t.addPeer("fuzz", d);
                t.removePeer("fuzz");
            } catch (TransportException expected) {
                assertEquals(DataTransport.NOT_SUBMITTED, t.writeBlocks("fuzz", new int[] {0}, new int[] {0}),
                        fx.msg("a rejected blob left peer 'fuzz' registered"));
            }
        }
        assertTrue(decoded < fx.env.fuzzIterations(), fx.msg("no mutation was rejected"));
        t.addPeer("a", a.descriptor());
        long id = fx.submit(t, true, "a", new int[] {0}, new int[] {1});
        fx.assertAllDone(fx.await(t, "a", List.of(id)));
    }

    private static byte[] mutate(byte[] good, Random random, int i) {
        switch (i % 5) {
            case 0 -> {
                return Arrays.copyOf(good, random.nextInt(good.length));
            }
            case 1 -> {
                byte[] b = good.clone();
                b[random.nextInt(b.length)] ^= (byte) (1 << random.nextInt(8));
                return b;
            }
            case 2 -> {
                byte[] b = new byte[random.nextInt(good.length * 2 + 1)];
                random.nextBytes(b);
                return b;
            }
            case 3 -> {
                byte[] b = Arrays.copyOf(good, good.length + 1 + random.nextInt(64));
                return b;
            }
            default -> {
                byte[] b = good.clone();
                for (int k = 0; k < 4; k++) {
                    b[random.nextInt(b.length)] = (byte) random.nextInt(256);
                }
                return b;
            }
        }
    }

    @Test
    @DisplayName("[M2] garbled backend metadata in a valid envelope is a typed error and registers nothing")
    public final void m2_garbledMetadata() {
        DataTransport t = fx.initiator();
        TargetPeer a = fx.target();
        PeerDescriptor d = a.descriptor();
        byte[] metadata = d.metadata();
        Random random = new Random(11);
        List<byte[]> garbled = new ArrayList<>();
        garbled.add(new byte[0]);
        garbled.add(Arrays.copyOf(metadata, metadata.length / 2));
        garbled.add(Arrays.copyOf(metadata, Math.max(0, metadata.length - 1)));
        byte[] noise = new byte[metadata.length];
        random.nextBytes(noise);
        garbled.add(noise);
        byte[] doubled = Arrays.copyOf(metadata, metadata.length * 2);
        System.arraycopy(metadata, 0, doubled, metadata.length, metadata.length);
        garbled.add(doubled);
        for (int k = 0; k < 8 && metadata.length > 0; k++) {
            byte[] flipped = metadata.clone();
            flipped[random.nextInt(flipped.length)] ^= (byte) 0xff;
            garbled.add(flipped);
        }
        for (int k = 0; k < garbled.size(); k++) {
            PeerDescriptor bad = Fixture.with(d, d.backend(), d.fingerprint(), d.baseAddress(), d.numBlocks(),
                    d.blockLength(), garbled.get(k));
            String peer = "garbled-" + k;
            try {
                t.addPeer(peer, bad);
                t.removePeer(peer);
            } catch (TransportException expected) {
                assertEquals(DataTransport.NOT_SUBMITTED, t.writeBlocks(peer, new int[] {0}, new int[] {0}),
                        fx.msg("garbled metadata " + k + " left a registration"));
            } catch (RuntimeException e) {
                throw new AssertionError(fx.msg("garbled metadata " + k + " raised " + e), e);
            }
        }
        t.addPeer("a", d);
        long id = fx.submit(t, true, "a", new int[] {0}, new int[] {1});
        fx.assertAllDone(fx.await(t, "a", List.of(id)));
    }

    @Test
    @DisplayName("[M3] a descriptor that claims more memory than the peer registered is rejected with a typed error")
    public final void m3_lyingGeometry() {
        DataTransport t = fx.initiator();
        TargetPeer a = fx.target();
        PeerDescriptor d = a.descriptor();
        PeerDescriptor moreBlocks = Fixture.with(d, d.backend(), d.fingerprint(), d.baseAddress(), d.numBlocks() * 4,
                d.blockLength(), d.metadata());
        PeerDescriptor shifted = Fixture.with(d, d.backend(), d.fingerprint(), d.baseAddress() + d.blockLength() * 8,
                d.numBlocks(), d.blockLength(), d.metadata());
        for (PeerDescriptor lie : List.of(moreBlocks, shifted)) {
            assertThrows(TransportException.class, () -> t.addPeer("liar", lie),
                    fx.msg("accepted a descriptor beyond the peer's registered region: " + lie));
            assertEquals(DataTransport.NOT_SUBMITTED, t.writeBlocks("liar", new int[] {0}, new int[] {0}),
                    fx.msg("a rejected lying descriptor left a registration"));
        }
    }

    // =========================================================== L: lifecycle

    @Test
    @DisplayName("[L1] close is idempotent, also when called from two threads at once")
    public final void l1_closeIdempotent() throws Exception {
        DataTransport t = fx.initiator();
        fx.connectedTarget(t, "a");
        fx.submit(t, true, "a", new int[] {0}, new int[] {0});
        CompletableFuture<Void> other = CompletableFuture.runAsync(t::close);
        assertDoesNotThrow(t::close, fx.msg("close racing another close threw"));
        Throwable otherError = other.handle((v, e) -> e).get(fx.env.timeout().toMillis(), TimeUnit.MILLISECONDS);
        assertNull(otherError, fx.msg("close racing another close threw in the other thread"));
        assertDoesNotThrow(t::close, fx.msg("a second close threw"));
    }

    @Test
    @DisplayName("[L2] every call after close throws IllegalStateException")
    public final void l2_useAfterClose() {
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        t.close();
        Map<String, Consumer<DataTransport>> calls = new HashMap<>();
        calls.put("writeBlocks", x -> x.writeBlocks("a", new int[] {0}, new int[] {0}));
        calls.put("readBlocks", x -> x.readBlocks("a", new int[] {0}, new int[] {0}));
        calls.put("poll", x -> x.poll("a"));
        calls.put("poll(handler)", x -> x.poll("a", (id, ok) -> { }));
        calls.put("pollAll", DataTransport::pollAll);
        calls.put("cancel", x -> x.cancel(new long[] {0}, CancelMode.WAIT));
        calls.put("addPeer", x -> x.addPeer("b", a.descriptor()));
        calls.put("addPeerAsync", x -> x.addPeerAsync("b", a.descriptor()));
        calls.put("removePeer", x -> x.removePeer("a"));
        calls.put("localDescriptor", DataTransport::localDescriptor);
        calls.put("agentMetadata", DataTransport::agentMetadata);
        calls.put("region", DataTransport::region);
        calls.put("feature", x -> x.feature(Object.class));
        calls.forEach((name, call) -> {
            var e = assertThrows(IllegalStateException.class, () -> call.accept(t), fx.msg(name + " after close"));
            assertNotNull(e.getMessage(), fx.msg(name + ": exception without a message"));
        });
    }

    @Test
    @DisplayName("[L3] close with transfers in flight returns within its timeout")
    public final void l3_closeWithInFlight() {
        DataTransport t = fx.initiator();
        fx.connectedTarget(t, "a");
        for (int i = 0; i < 64; i++) {
            fx.submit(t, true, "a", range(0, 32), range(32, 32));
        }
        long start = System.nanoTime();
        t.close();
        long tookMillis = (System.nanoTime() - start) / 1_000_000;
        assertTrue(tookMillis < 5_000 + 2_000, fx.msg("close took " + tookMillis + " ms"));
    }

    // =========================================================== S: threads

    @Test
    @DisplayName("[S1] concurrent submits and polls from several threads, one peer each, all land")
    public final void s1_concurrentSessions() throws Exception {
        DataTransport t = fx.initiator();
        int sessions = 4;
        List<TargetPeer> targets = new ArrayList<>();
        for (int s = 0; s < sessions; s++) {
            targets.add(fx.connectedTarget(t, "s" + s));
        }
        List<CompletableFuture<Void>> runs = new ArrayList<>();
        for (int s = 0; s < sessions; s++) {
            int session = s;
            runs.add(CompletableFuture.runAsync(() -> {
                List<Long> ids = new ArrayList<>();
                for (int i = 0; i < 100; i++) {
                    int b = (session * 16 + i) % Fixture.BLOCKS;
                    ids.add(fx.submit(t, true, "s" + session, new int[] {b}, new int[] {b}));
                }
                fx.assertAllDone(fx.await(t, "s" + session, ids));
            }));
        }
        for (CompletableFuture<Void> r : runs) {
            try {
                r.get(fx.env.timeout().toMillis() * 2, TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                throw e.getCause() instanceof AssertionError ae ? ae : new AssertionError(e.getCause());
            } catch (TimeoutException e) {
                fail(fx.msg("a session did not finish"));
            }
        }
        for (int s = 0; s < sessions; s++) {
            for (int i = 0; i < 100; i++) {
                int b = (s * 16 + i) % Fixture.BLOCKS;
                fx.assertTargetBlock(targets.get(s), b, BlockPattern.seed(Fixture.LOCAL, b), "session " + s);
            }
        }
    }

    @Test
    @DisplayName("[S2] under a stress of writes, reads, polls, cancels and peer churn, every id ends exactly once")
    public final void s2_stressLedger() throws Exception {
        StressRun run = new StressRun(fx, fx.initiator(), 3);
        run.run(fx.env.stress());
        run.verify();
        assertTrue(run.submitted() > 0, fx.msg("the stress submitted nothing"));
    }
}
