package io.blockxfer.tck;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.fail;

import io.blockxfer.transport.Capability;
import io.blockxfer.transport.CompletionHandler;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;

/**
 * What one conformance rule opens, and the helpers its assertions share: transports and targets
 * filled with known patterns, submits that must be accepted, polls that check what they report,
 * byte verification, ways to hold transfers in flight, and bounded waits. Closes everything it
 * opened, in reverse order, thawing stalled targets first and never waiting forever.
 *
 * <p><b>Thread safety:</b> opening and closing are confined to the rule's thread; the helpers are
 * thread-safe.
 */
final class Fixture implements AutoCloseable {

    static final Map<String, Object> FIELDS = Map.of("block_size_factor", 4, "dtype", "bfloat16");
    static final int BLOCKS = 64;
    static final long BLOCK_LENGTH = 4096;
    /** Pattern family of the initiator's local blocks. */
    static final long LOCAL = 1;
    /** Pattern family a target's blocks start with. */
    static final long TARGET = 2;

    private static final AtomicInteger AGENTS = new AtomicInteger();
    private static final Duration CLOSE_BOUND = Duration.ofSeconds(60);

    final TckHarness harness;
    final TckEnvironment env;
    final ConformanceRules rule;
    private final Arena arena = Arena.ofShared();
    private final List<AutoCloseable> opened = new ArrayList<>();
    /** The region each initiator was opened with, by transport identity. */
    private final IdentityHashMap<DataTransport, RegionSpec> regions = new IdentityHashMap<>();
    private final Set<TargetPeer> stalled = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private boolean leaked;
    /** The deployment key ring of every transport opened from now on; none unless a rule sets one. */
    volatile @Nullable DeploymentKeyRing keyRing;

    Fixture(TckHarness harness, TckEnvironment env, ConformanceRules rule) {
        this.harness = harness;
        this.env = env;
        this.rule = rule;
    }

    String backend() {
        return harness.backend();
    }

    /** An assertion message that names the rule, the backend and the placement. */
    String msg(String text) {
        return "[" + rule.name() + "] " + harness.backend() + " (" + harness.mode() + "): " + text;
    }

    boolean has(Capability capability) {
        return harness.capabilities().contains(capability);
    }

    // ------------------------------------------------------------------ opening

    TransportConfig config(int blocks, long blockLength, Duration transferTimeout, Duration closeTimeout) {
        boolean caller = harness.memory() == TckHarness.Memory.CALLER || !has(Capability.BACKEND_REGION);
        RegionSpec region = caller ? RegionSpec.wrap(arena.allocate(blocks * blockLength, 4096), blockLength)
                : RegionSpec.allocate(blocks, blockLength);
        return TransportConfig.builder(region).configFields(FIELDS).transferTimeout(transferTimeout)
                .keyRing(keyRing).closeTimeout(closeTimeout).agentName(agentName("")).build();
    }

    /** A fresh agent name of this rule's: {@code tck-<rule><infix>-<pid>-<n>}. */
    private String agentName(String infix) {
        return "tck-" + rule.name().toLowerCase(Locale.ROOT) + infix + "-" + ProcessHandle.current().pid() + "-"
                + AGENTS.incrementAndGet();
    }

    /**
     * A config whose region the backend must allocate and this host cannot hold (twice its memory
     * and swap, in 1 MiB blocks, by {@code /proc/meminfo}); empty where the kit gives regions its
     * own memory or the host's memory cannot be read.
     */
    Optional<TransportConfig> configThisHostCannotHold() {
        if (harness.memory() == TckHarness.Memory.CALLER || !has(Capability.BACKEND_REGION)) {
            return Optional.empty();
        }
        long bytes = 0;
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:") || line.startsWith("SwapTotal:")) {
                    bytes += Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
        long blockLength = 1L << 20;
        long blocks = 2 * bytes / blockLength + 1;
        if (bytes == 0 || blocks > Integer.MAX_VALUE) {
            return Optional.empty();
        }
        return Optional.of(TransportConfig.builder(RegionSpec.allocate((int) blocks, blockLength)).configFields(FIELDS)
                .keyRing(keyRing).agentName(agentName("-too-large")).build());
    }

    /** Opens an initiator and fills nothing (it is closed with the fixture); for a refusal expected. */
    DataTransport openBare(TransportConfig config) {
        DataTransport t = harness.openInitiator(config);
        opened.add(t);
        return t;
    }

    TransportConfig config(int blocks, long blockLength, Duration transferTimeout) {
        return config(blocks, blockLength, transferTimeout, env.closeTimeout());
    }

    /**
     * The usual config: its transfer deadline lies well past every wait of the kit, so a transfer
     * that never ends fails the wait instead of being failed by the deadline first.
     */
    TransportConfig config() {
        return config(BLOCKS, BLOCK_LENGTH, env.timeout().multipliedBy(3));
    }

    /** A config whose transfers fail after the kit's deadline, for the deadline rules. */
    TransportConfig deadlineConfig() {
        return config(BLOCKS, BLOCK_LENGTH, env.deadline());
    }

    /** An initiator whose block {@code b} holds the pattern of {@code seed(LOCAL, b)}. */
    DataTransport initiator(TransportConfig config) {
        DataTransport t = harness.openInitiator(config);
        opened.add(t);
        regions.put(t, config.region());
        for (int b = 0; b < config.region().numBlocks(); b++) {
            BlockPattern.fill(localBlock(t, b), BlockPattern.seed(LOCAL, b));
        }
        return t;
    }

    DataTransport initiator() {
        return initiator(config());
    }

    /** The memory the kit gave {@code t}, if it gave it any. */
    Optional<MemorySegment> callerMemory(DataTransport t) {
        RegionSpec spec = regions.get(t);
        return spec == null ? Optional.empty() : spec.callerMemory();
    }

    /** Local block {@code b} of {@code t}, read as its owner sees it (the caller's memory when it gave it). */
    MemorySegment localBlock(DataTransport t, int b) {
        RegionSpec spec = regions.get(t);
        MemorySegment m = spec == null ? null : spec.callerMemory().orElse(null);
        if (spec == null || m == null) {
            return t.region().block(b);
        }
        long length = spec.blockLength();
        return m.asSlice(b * length, length);
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

    // ------------------------------------------------------------------ submitting

    long submit(DataTransport t, boolean write, String peerId, int[] local, int[] remote) {
        long id = write ? t.writeBlocks(peerId, local, remote) : t.readBlocks(peerId, local, remote);
        if (id == DataTransport.NOT_SUBMITTED) {
            fail(msg((write ? "WRITE" : "READ") + " to registered peer '" + peerId + "' was not submitted"));
        }
        if (id < 0) {
            fail(msg((write ? "WRITE" : "READ") + " to '" + peerId + "' returned the negative id " + id));
        }
        return id;
    }

    long write(DataTransport t, String peerId, int[] local, int[] remote) {
        return submit(t, true, peerId, local, remote);
    }

    long write(DataTransport t, String peerId, int local, int remote) {
        return submit(t, true, peerId, new int[] {local}, new int[] {remote});
    }

    // ------------------------------------------------------------------ polling

    /** One poll of {@code peerId} ({@code null}: pollAll), checked for a result and for duplicates inside it. */
    PollResult poll(DataTransport t, @Nullable String peerId) {
        PollResult r = peerId == null ? t.pollAll() : t.poll(peerId);
        if (r == null) {
            fail(msg(pollName(peerId) + " returned null"));
        }
        Set<Long> seen = new HashSet<>();
        for (int i = 0; i < r.doneCount() + r.failedCount(); i++) {
            long id = i < r.doneCount() ? r.doneId(i) : r.failedId(i - r.doneCount());
            if (!seen.add(id)) {
                fail(msg(pollName(peerId) + " reported transfer " + id + " twice in one result: " + r));
            }
        }
        if (r.isEmpty()) {
            assertSame(PollResult.EMPTY, r, () -> msg(pollName(peerId)
                    + " returned an empty result that is not the shared PollResult.EMPTY"));
        }
        return r;
    }

    static String pollName(@Nullable String peerId) {
        return peerId == null ? "pollAll()" : "poll('" + peerId + "')";
    }

    /**
     * Polls {@code peerId} (or every peer, when null) until each of {@code ids} is reported, and
     * returns each id's outcome in the order reported. Fails on a duplicate report, on a report of
     * an id outside {@code ids}, and on timeout, naming the ids still pending.
     */
    Map<Long, Boolean> await(DataTransport t, @Nullable String peerId, Collection<Long> ids) {
        return await(t, peerId, ids, env.timeout());
    }

    Map<Long, Boolean> await(DataTransport t, @Nullable String peerId, Collection<Long> ids, Duration timeout) {
        Set<Long> pending = new HashSet<>(ids);
        Map<Long, Boolean> outcomes = new LinkedHashMap<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!pending.isEmpty()) {
            record(poll(t, peerId), pending, outcomes, peerId);
            if (pending.isEmpty()) {
                break;
            }
            if (System.nanoTime() - deadline > 0) {
                fail(msg("transfers " + pending + " of " + (peerId == null ? "any peer" : "peer '" + peerId + "'")
                        + " not reported within " + timeout.toMillis() + " ms; reported so far: " + outcomes));
            }
            LockSupport.parkNanos(50_000);
        }
        return outcomes;
    }

    void record(PollResult result, Set<Long> pending, Map<Long, Boolean> outcomes, @Nullable String peerId) {
        for (int i = 0; i < result.doneCount() + result.failedCount(); i++) {
            boolean done = i < result.doneCount();
            long id = done ? result.doneId(i) : result.failedId(i - result.doneCount());
            Boolean first = outcomes.get(id);
            if (first != null) {
                fail(msg("transfer " + id + " reported twice (first " + (first ? "done" : "failed")
                        + ", then " + (done ? "done" : "failed") + ")"));
            }
            if (!pending.remove(id)) {
                fail(msg(pollName(peerId) + " reported transfer " + id + " (" + (done ? "done" : "failed")
                        + "), which is not one of the transfers it owes: " + pending));
            }
            outcomes.put(id, done);
        }
    }

    /** Polls {@code peerId} (or all) for the quiet period; every poll must return {@link PollResult#EMPTY}. */
    void assertQuiet(DataTransport t, @Nullable String peerId, String why) {
        assertQuiet(t, peerId, env.quiet(), why);
    }

    void assertQuiet(DataTransport t, @Nullable String peerId, Duration period, String why) {
        long end = System.nanoTime() + period.toNanos();
        do {
            PollResult r = poll(t, peerId);
            assertSame(PollResult.EMPTY, r, () -> msg(pollName(peerId) + " reported " + r + " " + why));
            LockSupport.parkNanos(1_000_000);
        } while (System.nanoTime() - end < 0);
    }

    /** A handler poll whose return value must equal the number of handler calls. */
    int pollWith(DataTransport t, @Nullable String peerId, CompletionHandler handler) {
        int[] calls = new int[1];
        CompletionHandler counting = (id, ok) -> {
            calls[0]++;
            handler.onTerminal(id, ok);
        };
        int n = peerId == null ? t.pollAll(counting) : t.poll(peerId, counting);
        if (n != calls[0]) {
            fail(msg((peerId == null ? "pollAll(handler)" : "poll('" + peerId + "', handler)") + " returned " + n
                    + " but called the handler " + calls[0] + " times"));
        }
        return n;
    }

    /** Whether transfer {@code id} was reported done in {@code outcomes}; fails if it was not reported at all. */
    boolean reportedDone(Map<Long, Boolean> outcomes, long id) {
        Boolean done = outcomes.get(id);
        if (done == null) {
            throw new AssertionError(msg("transfer " + id + " was not reported; reported: " + outcomes));
        }
        return done;
    }

    void assertAllDone(Map<Long, Boolean> outcomes) {
        outcomes.forEach((id, done) -> {
            if (!done) {
                fail(msg("transfer " + id + " failed; expected done"));
            }
        });
    }

    void assertAllFailed(Map<Long, Boolean> outcomes, String why) {
        outcomes.forEach((id, done) -> {
            if (done) {
                fail(msg("transfer " + id + " reported done " + why));
            }
        });
    }

    // ------------------------------------------------------------------ bytes

    /** Asserts that target block {@code block} holds the pattern of {@code seed}. */
    void assertTargetBlock(TargetPeer target, int block, long seed, String what) {
        long at = target.firstMismatch(block, seed);
        if (at >= 0) {
            fail(msg(what + ": target block " + block + " differs at byte " + at));
        }
    }

    /** Asserts that local block {@code block} of {@code t} holds the pattern of {@code seed}. */
    void assertLocalBlock(DataTransport t, int block, long seed, String what) {
        long at = BlockPattern.firstMismatch(localBlock(t, block), seed);
        if (at >= 0) {
            fail(msg(what + ": local block " + block + " differs at byte " + at));
        }
    }

    /** Asserts that a WRITE of {@code local} to {@code remote} landed (the last pair wins for a repeated block). */
    void assertWritten(TargetPeer target, int[] local, int[] remote, String what) {
        for (Map.Entry<Integer, Integer> e : lastSources(local, remote).entrySet()) {
            assertTargetBlock(target, e.getKey(), BlockPattern.seed(LOCAL, e.getValue()), what);
        }
    }

    /** Whether a WRITE of {@code local} to {@code remote} has landed. */
    boolean landed(TargetPeer target, int[] local, int[] remote) {
        for (Map.Entry<Integer, Integer> e : lastSources(local, remote).entrySet()) {
            if (target.firstMismatch(e.getKey(), BlockPattern.seed(LOCAL, e.getValue())) >= 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * Waits until a WRITE's bytes are in the target, then for the settle time, after which a
     * correct backend has marked it completed.
     */
    void awaitLanded(TargetPeer target, int[] local, int[] remote, String what) {
        long deadline = System.nanoTime() + env.timeout().toNanos();
        while (!landed(target, local, remote)) {
            if (System.nanoTime() - deadline > 0) {
                fail(msg(what + ": its bytes did not land within " + env.timeout().toMillis() + " ms"));
            }
            LockSupport.parkNanos(1_000_000);
        }
        sleep(env.settle());
    }

    /** Asserts that every target block outside {@code written} still holds its initial pattern. */
    void assertUntouched(TargetPeer target, Set<Integer> written, String what) {
        for (int b = 0; b < target.numBlocks(); b++) {
            if (!written.contains(b)) {
                assertTargetBlock(target, b, BlockPattern.seed(TARGET, b), what);
            }
        }
    }

    private static Map<Integer, Integer> lastSources(int[] local, int[] remote) {
        Map<Integer, Integer> last = new LinkedHashMap<>();
        for (int i = 0; i < local.length; i++) {
            last.put(remote[i], local[i]);
        }
        return last;
    }

    // ------------------------------------------------------------------ holding transfers in flight

    /** How a rule can make sure transfers stay in flight. */
    enum Hold {
        /** Stall the target: nothing moves until the thaw. */
        STALL,
        /** The initiator's completions are delayed: bytes move, "done" comes after {@code env.hold()}. */
        DELAY,
        /** Neither: the rule can only hope transfers are still in flight. */
        NONE
    }

    /** Whether stalling {@code target} holds its transfers for sure. */
    boolean canHold(TargetPeer target) {
        return target.canStall() && target.stallHoldsTransfers();
    }

    Optional<InitiatorFaults> faults(DataTransport t) {
        return harness.initiatorFaults(t);
    }

    /** The surest way to hold transfers from {@code t} to {@code target} in flight. */
    Hold hold(DataTransport t, TargetPeer target) {
        if (canHold(target)) {
            return Hold.STALL;
        }
        return faults(t).isPresent() ? Hold.DELAY : Hold.NONE;
    }

    /** Starts holding transfers submitted from now on. */
    void startHolding(Hold hold, DataTransport t, TargetPeer target) {
        switch (hold) {
            case STALL -> stall(target);
            case DELAY -> faults(t).orElseThrow().delayCompletions(env.hold());
            case NONE -> { }
        }
    }

    /** Transfers submitted from now on are not held by a delay (a stall still holds them). */
    void stopDelaying(Hold hold, DataTransport t) {
        if (hold == Hold.DELAY) {
            faults(t).orElseThrow().delayCompletions(Duration.ZERO);
        }
    }

    /** Ends a hold: thaws the target, or waits out the delay of transfers submitted at {@code heldSince}. */
    void release(Hold hold, TargetPeer target, long heldSince) {
        switch (hold) {
            case STALL -> thaw(target);
            case DELAY -> {
                long left = heldSince + env.hold().toNanos() - System.nanoTime();
                if (left > 0) {
                    LockSupport.parkNanos(left + 50_000_000L);
                }
            }
            case NONE -> { }
        }
    }

    void stall(TargetPeer target) {
        target.stall(true);
        stalled.add(target);
    }

    /** Kills {@code target} (a stall of it ends with it). */
    void kill(TargetPeer target) {
        stalled.remove(target);
        target.kill();
    }

    void thaw(TargetPeer target) {
        if (stalled.remove(target)) {
            target.stall(false);
        }
    }

    // ------------------------------------------------------------------ time

    void sleep(Duration d) {
        LockSupport.parkNanos(d.toNanos());
    }

    /** Runs {@code call} in a thread of its own; fails if it does not return within {@code bound}. */
    <T> T within(Duration bound, String what, Callable<T> call) {
        CompletableFuture<T> f = start(what, call);
        try {
            return f.get(bound.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            fail(msg(what + " did not return within " + bound.toMillis() + " ms"));
            throw new AssertionError(e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof AssertionError ae) {
                throw ae;
            }
            throw new AssertionError(msg(what + " threw " + cause), cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(msg("interrupted during " + what), e);
        }
    }

    /** Starts {@code call} on a daemon thread of its own. */
    <T> CompletableFuture<T> start(String what, Callable<T> call) {
        CompletableFuture<T> f = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("tck-" + rule.name() + "-" + what.replace(' ', '-')).start(() -> {
            try {
                f.complete(call.call());
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        });
        return f;
    }

    static int[] range(int from, int count) {
        return IntStream.range(from, from + count).toArray();
    }

    /** A copy of {@code d} with some fields replaced. */
    static PeerDescriptor with(PeerDescriptor d, String backend, String fingerprint, long base, int blocks,
            long blockLength, byte[] metadata) {
        return new PeerDescriptor(backend, fingerprint, base, blocks, blockLength, metadata);
    }

    @Override
    public void close() {
        AssertionError first = null;
        for (TargetPeer t : List.copyOf(stalled)) {
            try {
                thaw(t);
            } catch (RuntimeException e) {
                first = note(first, new AssertionError(msg("thawing " + t + " failed: " + e), e));
            }
        }
        for (int i = opened.size() - 1; i >= 0; i--) {
            AutoCloseable c = opened.get(i);
            CompletableFuture<Object> f = start("close", () -> {
                c.close();
                return null;
            });
            try {
                f.get(CLOSE_BOUND.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                leaked = true;
                first = note(first, new AssertionError(msg("closing " + c + " did not return within "
                        + CLOSE_BOUND.toSeconds() + " s")));
            } catch (ExecutionException e) {
                first = note(first, new AssertionError(msg("closing " + c + " failed: " + e.getCause()), e.getCause()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                leaked = true;
            }
        }
        if (!leaked) {
            arena.close(); // kept when a close hung: a backend may still write into it
        }
        if (first != null) {
            throw first;
        }
    }

    private static AssertionError note(@Nullable AssertionError first, AssertionError next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }
}
