package io.blockxfer.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.fail;

import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import java.lang.foreign.Arena;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;

/**
 * What one conformance rule opens, and the helpers its assertions share; closes everything it
 * opened, in reverse order.
 *
 * <p><b>Thread safety:</b> opening is confined to the test thread; the helpers are thread-safe.
 */
final class Fixture implements AutoCloseable {

    static final Map<String, Object> FIELDS = Map.of("block_size_factor", 4, "dtype", "bfloat16");
    static final int BLOCKS = 64;
    static final long BLOCK_LENGTH = 4096;
    /** Pattern family of the initiator's local blocks. */
    static final long LOCAL = 1;
    /** Pattern family a target's blocks start with. */
    static final long TARGET = 2;

    final TckHarness harness;
    final TckEnvironment env;
    final String rule;
    private final Arena arena = Arena.ofShared();
    private final List<AutoCloseable> opened = new ArrayList<>();

    Fixture(TckHarness harness, TckEnvironment env, String rule) {
        this.harness = harness;
        this.env = env;
        this.rule = rule;
    }

    String backend() {
        return harness.backend();
    }

    /** An assertion message that names the rule, the backend and the placement. */
    String msg(String text) {
        return "[" + rule + "] " + harness.backend() + " (" + harness.mode() + "): " + text;
    }

    boolean has(Capability capability) {
        return harness.capabilities().contains(capability);
    }

    TransportConfig config(int blocks, long blockLength, Duration transferTimeout) {
        RegionSpec region = has(Capability.BACKEND_REGION) ? RegionSpec.allocate(blocks, blockLength)
                : RegionSpec.wrap(arena.allocate(blocks * blockLength, 4096), blockLength);
        return TransportConfig.builder(region).configFields(FIELDS).transferTimeout(transferTimeout)
                .closeTimeout(Duration.ofSeconds(5)).build();
    }

    TransportConfig config() {
        return config(BLOCKS, BLOCK_LENGTH, env.timeout());
    }

    /** An initiator whose block {@code b} holds the pattern of {@code seed(LOCAL, b)}. */
    DataTransport initiator(TransportConfig config) {
        DataTransport t = harness.openInitiator(config);
        opened.add(t);
        for (int b = 0; b < t.region().numBlocks(); b++) {
            BlockPattern.fill(t.region().block(b), BlockPattern.seed(LOCAL, b));
        }
        return t;
    }

    DataTransport initiator() {
        return initiator(config());
    }

    /** A target whose block {@code b} holds the pattern of {@code seed(TARGET, b)}. */
    TargetPeer target(TransportConfig config) {
        TargetPeer t = harness.openTarget(config);
        opened.add(t);
        for (int b = 0; b < t.numBlocks(); b++) {
            t.fill(b, BlockPattern.seed(TARGET, b));
        }
        return t;
    }

    TargetPeer target() {
        return target(config());
    }

    /** A target registered with {@code initiator} under {@code peerId}. */
    TargetPeer connectedTarget(DataTransport initiator, String peerId) {
        TargetPeer t = target();
        initiator.addPeer(peerId, t.descriptor());
        return t;
    }

    long submit(DataTransport t, boolean write, String peerId, int[] local, int[] remote) {
        long id = write ? t.writeBlocks(peerId, local, remote) : t.readBlocks(peerId, local, remote);
        if (id == DataTransport.NOT_SUBMITTED) {
            fail(msg((write ? "WRITE" : "READ") + " to registered peer '" + peerId + "' was not submitted"));
        }
        return id;
    }

    /**
     * Polls {@code peerId} (or every peer, when null) until each of {@code ids} is reported, and
     * returns each id's outcome. Fails on a duplicate report, on a report of an id outside
     * {@code ids}, and on timeout, naming the ids still pending.
     */
    Map<Long, Boolean> await(DataTransport t, String peerId, Collection<Long> ids) {
        return await(t, peerId, ids, env.timeout());
    }

    Map<Long, Boolean> await(DataTransport t, String peerId, Collection<Long> ids, Duration timeout) {
        Set<Long> pending = new HashSet<>(ids);
        Map<Long, Boolean> outcomes = new LinkedHashMap<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!pending.isEmpty()) {
            var result = peerId == null ? t.pollAll() : t.poll(peerId);
            record(result, pending, outcomes, peerId);
            if (pending.isEmpty()) {
                break;
            }
            if (System.nanoTime() - deadline > 0) {
                fail(msg("transfers " + pending + " of peer " + (peerId == null ? "<all>" : "'" + peerId + "'")
                        + " not reported within " + timeout.toMillis() + " ms; reported so far: " + outcomes));
            }
            LockSupport.parkNanos(50_000);
        }
        return outcomes;
    }

    void record(io.blockxfer.transport.PollResult result, Set<Long> pending, Map<Long, Boolean> outcomes,
            String peerId) {
        for (int i = 0; i < result.doneCount() + result.failedCount(); i++) {
            boolean done = i < result.doneCount();
            long id = done ? result.doneId(i) : result.failedId(i - result.doneCount());
            if (outcomes.containsKey(id)) {
                fail(msg("transfer " + id + " reported twice (first " + (outcomes.get(id) ? "done" : "failed")
                        + ", then " + (done ? "done" : "failed") + ")"));
            }
            if (!pending.remove(id)) {
                fail(msg("poll(" + (peerId == null ? "<all>" : "'" + peerId + "'") + ") reported transfer " + id
                        + ", which is not one of the transfers it owes: " + pending));
            }
            outcomes.put(id, done);
        }
    }

    void assertAllDone(Map<Long, Boolean> outcomes) {
        outcomes.forEach((id, done) -> {
            if (!done) {
                fail(msg("transfer " + id + " failed; expected done"));
            }
        });
    }

    /** Asserts that target block {@code block} holds the pattern of {@code seed}. */
    void assertTargetBlock(TargetPeer target, int block, long seed, String what) {
        long at = target.firstMismatch(block, seed);
        if (at >= 0) {
            fail(msg(what + ": target block " + block + " differs at byte " + at));
        }
    }

    /** Asserts that local block {@code block} of {@code t} holds the pattern of {@code seed}. */
    void assertLocalBlock(DataTransport t, int block, long seed, String what) {
        long at = BlockPattern.firstMismatch(t.region().block(block), seed);
        if (at >= 0) {
            fail(msg(what + ": local block " + block + " differs at byte " + at));
        }
    }

    void assertNothingReported(DataTransport t, String peerId) {
        var r = t.poll(peerId);
        assertEquals(io.blockxfer.transport.PollResult.EMPTY, r, msg("poll('" + peerId + "') reported " + r));
    }

    /** A copy of {@code d} with some fields replaced. */
    static PeerDescriptor with(PeerDescriptor d, String backend, String fingerprint, long base, int blocks,
            long blockLength, byte[] metadata) {
        return new PeerDescriptor(backend, fingerprint, base, blocks, blockLength, metadata);
    }

    static void assertNoException(Throwable t, String message) {
        assertNull(t, message);
    }

    @Override
    public void close() {
        RuntimeException first = null;
        for (int i = opened.size() - 1; i >= 0; i--) {
            try {
                opened.get(i).close();
            } catch (Exception e) {
                if (first == null) {
                    first = new IllegalStateException(msg("closing " + opened.get(i) + " failed"), e);
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        arena.close();
        if (first != null) {
            throw first;
        }
    }
}
