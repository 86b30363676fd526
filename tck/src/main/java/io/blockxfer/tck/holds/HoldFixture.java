package io.blockxfer.tck.holds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.blockxfer.holds.Hold;
import io.blockxfer.holds.HoldEnd;
import io.blockxfer.holds.Holds;
import io.blockxfer.holds.Lease;
import io.blockxfer.holds.LeaseException;
import io.blockxfer.holds.ManualHoldClock;
import io.blockxfer.tck.BlockPattern;
import io.blockxfer.tck.TckEnvironment;
import io.blockxfer.tck.TckHarness;
import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.Notification;
import io.blockxfer.transport.NotificationHandler;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * What one hold rule opens: an owner and a holder transport of the backend under test, registered
 * with each other ("holder" and "owner"), each with holds on a manual clock and manual ticks; a
 * {@link Gate} in front of the holder's transfers; the owner's blocks filled with a known pattern;
 * and the helpers the rules share: carrying notifications both ways, waiting for ends, reusing
 * blocks, checking bytes. Closes what it opened.
 *
 * <p><b>Thread safety:</b> confined to the rule's thread, except the recorded ends.
 */
final class HoldFixture implements AutoCloseable {

    static final int BLOCKS = 16;
    static final long BLOCK_LENGTH = 4096;
    static final Duration TTL = Duration.ofSeconds(2);
    static final Duration MS = Duration.ofMillis(1);
    /** Pattern families: the owner's blocks, the holder's, and what the owner writes when it reuses blocks. */
    static final long OWNER = 21;
    static final long HOLDER = 22;
    static final long REUSED = 23;

    private static final AtomicInteger AGENTS = new AtomicInteger();

    final TckHarness harness;
    final TckEnvironment env;
    final HoldRules rule;
    final HoldBreakage breakage;
    /** JVM arguments of a holder process. */
    final List<String> holderJvmArgs;
    private final Arena arena = Arena.ofShared();
    private final List<AutoCloseable> opened = new ArrayList<>();
    private final List<HoldEnd> ends = new ArrayList<>();
    private final List<Notification> others = new ArrayList<>();
    private final Consumer<HoldEnd> endSink;
    private final String name;

    // the standard pair, once opened
    @Nullable DataTransport ownerTransport;
    @Nullable DataTransport holderTransport;
    @Nullable Gate gate;
    final ManualHoldClock ownerClock = new ManualHoldClock();
    final ManualHoldClock holderClock = new ManualHoldClock();
    @Nullable Holds owner;
    @Nullable Holds holder;
    private @Nullable NotificationHandler ownerFeed;
    private @Nullable NotificationHandler holderFeed;
    private boolean ownerPaused;

    HoldFixture(TckHarness harness, TckEnvironment env, HoldRules rule, HoldBreakage breakage,
            List<String> holderJvmArgs) {
        this.harness = harness;
        this.holderJvmArgs = List.copyOf(holderJvmArgs);
        this.env = env;
        this.rule = rule;
        this.breakage = breakage;
        this.name = "tck-" + rule.name().toLowerCase(Locale.ROOT) + "-" + ProcessHandle.current().pid() + "-"
                + AGENTS.incrementAndGet();
        this.endSink = breakage.ends(e -> {
            synchronized (ends) {
                ends.add(e);
            }
        });
    }

    /** An assertion message that names the rule, the backend and the placement. */
    String msg(String text) {
        return "[" + rule.name() + "] " + harness.backend() + " (" + harness.mode() + "): " + text;
    }

    /** The agent name of this rule's transport of {@code role}. */
    String agentName(String role) {
        return name + "-" + role;
    }

    /** A config of this rule's geometry for a transport named {@code role}. */
    TransportConfig config(String role) {
        boolean caller = harness.memory() == TckHarness.Memory.CALLER
                || !harness.capabilities().contains(Capability.BACKEND_REGION);
        RegionSpec region = caller ? RegionSpec.wrap(arena.allocate(BLOCKS * BLOCK_LENGTH, 4096), BLOCK_LENGTH)
                : RegionSpec.allocate(BLOCKS, BLOCK_LENGTH);
        return TransportConfig.builder(region).agentName(agentName(role)).transferTimeout(env.timeout()
                .multipliedBy(3)).closeTimeout(env.closeTimeout()).progressMode(harness.progressMode()).build();
    }

    /** A transport of the backend, closed with the fixture, its blocks filled with {@code family}'s pattern. */
    DataTransport open(String role, long family) {
        DataTransport t = harness.openInitiator(config(role));
        opened.add(t);
        for (int b = 0; b < BLOCKS; b++) {
            BlockPattern.fill(t.region().block(b), BlockPattern.seed(family, b));
        }
        return t;
    }

    /** Keeps {@code c} to close with the fixture. */
    <T extends AutoCloseable> T keep(T c) {
        opened.add(c);
        return c;
    }

    /** Opens the standard pair: owner and holder transports and holds, manual clocks and ticks. */
    void openPair() {
        DataTransport o = open("owner", OWNER);
        DataTransport h = open("holder", HOLDER);
        o.addPeer("holder", h.localDescriptor());
        h.addPeer("owner", o.localDescriptor());
        ownerTransport = o;
        holderTransport = h;
        Gate g = new Gate(h);
        gate = g;
        Holds ho = keep(breakage.owner(Holds.builder(breakage.ownerTransport(o)).clock(ownerClock).manualTicks(),
                ownerClock).build());
        Holds hh = keep(breakage.holder(Holds.builder(breakage.holderTransport(g)).clock(holderClock).manualTicks(),
                holderClock).build());
        owner = ho;
        holder = hh;
        ownerFeed = breakage.ownerFeed(ho.handler(this::other), o);
        holderFeed = breakage.holderFeed(hh.handler(this::other), h);
    }

    private void other(Notification n) {
        synchronized (others) {
            others.add(n);
        }
    }

    Holds owner() {
        return require(owner);
    }

    Holds holder() {
        return require(holder);
    }

    DataTransport ownerTransport() {
        return require(ownerTransport);
    }

    DataTransport holderTransport() {
        return require(holderTransport);
    }

    Gate gate() {
        return require(gate);
    }

    private static <T> T require(@Nullable T t) {
        if (t == null) {
            throw new IllegalStateException("the rule did not open the pair");
        }
        return t;
    }

    /** A hold of {@code blocks} for the holder, with the rule's TTL. */
    Hold hold(int... blocks) {
        return owner().create("holder", blocks, TTL);
    }

    /** The holder accepts {@code hold}'s grant, and the owner's first answer arrives. */
    Lease confirmed(Hold hold) throws InterruptedException {
        Lease lease = holder().accept("owner", hold.grant());
        exchangeUntil("the owner's answer to the first renewal of " + hold, () -> lease.status() != Lease.Status.PENDING);
        assertEquals(Lease.Status.CONFIRMED, lease.status(), msg("the owner answered the first renewal of " + hold));
        return lease;
    }

    /**
     * Carries notifications both ways until {@code done} holds, for a backend whose notifications
     * take a while; fails the rule after the kit's timeout.
     */
    void exchangeUntil(String what, BooleanSupplier done) throws InterruptedException {
        long until = System.nanoTime() + env.timeout().toNanos();
        while (true) {
            exchange();
            if (done.getAsBoolean()) {
                return;
            }
            if (System.nanoTime() > until) {
                fail(msg("waited " + env.timeout().toMillis() + " ms for " + what));
            }
            Thread.sleep(2);
        }
    }

    /** How many notifications the owner's transport delivered so far. */
    long ownerDelivered() {
        return ownerTransport().notificationStats().delivered();
    }

    /** How many notifications the holder's transport delivered so far. */
    long holderDelivered() {
        return holderTransport().notificationStats().delivered();
    }

    /** Moves both clocks. */
    void advance(Duration d) {
        ownerClock.advance(d);
        holderClock.advance(d);
    }

    /** Ticks the holder, carries what it sent until the owner answered all of it, ticks the owner, carries again. */
    void tick() throws InterruptedException {
        long sent = holder().stats().renewalsSent();
        long answered = holder().stats().renewalsConfirmed();
        holder().tick();
        long expected = answered + holder().stats().renewalsSent() - sent;
        exchangeUntil("the owner's answers to the holder's renewals", () -> holder().stats().renewalsConfirmed()
                >= expected);
        owner().tick();
        exchange();
    }

    /** Leaves the owner's notifications in its transport until {@link #resumeOwner()}. */
    void pauseOwner() {
        ownerPaused = true;
    }

    void resumeOwner() {
        ownerPaused = false;
    }

    /** Carries notifications both ways until neither side has any left for a few rounds. */
    void exchange() throws InterruptedException {
        NotificationHandler of = require(ownerFeed);
        NotificationHandler hf = require(holderFeed);
        for (int quiet = 0; quiet < 4; ) {
            int n = (ownerPaused ? 0 : ownerTransport().pollNotifications(of)) + holderTransport().pollNotifications(hf);
            if (n == 0) {
                quiet++;
                Thread.sleep(2);
            } else {
                quiet = 0;
            }
        }
        owner().pollEnded(endSink);
    }

    /** The ends recorded since the last call, drained. */
    List<HoldEnd> ends() throws InterruptedException {
        exchange();
        synchronized (ends) {
            List<HoldEnd> got = new ArrayList<>(ends);
            ends.clear();
            return got;
        }
    }

    /** Waits until at least {@code n} ends were recorded; returns them, drained. */
    List<HoldEnd> awaitEnds(int n) throws InterruptedException {
        long until = System.nanoTime() + env.timeout().toNanos();
        while (System.nanoTime() < until) {
            exchange();
            synchronized (ends) {
                if (ends.size() >= n) {
                    List<HoldEnd> got = new ArrayList<>(ends);
                    ends.clear();
                    return got;
                }
            }
            Thread.sleep(5);
        }
        synchronized (ends) {
            fail(msg("waited " + env.timeout().toMillis() + " ms for " + n + " hold ends; got " + ends));
            return List.of();
        }
    }

    /** Ticks the owner and carries messages for the kit's quiet time, and checks that no hold ended. */
    void assertNoEnds(String why) throws InterruptedException {
        long until = System.nanoTime() + env.quiet().toNanos();
        do {
            owner().tick();
            List<HoldEnd> got = ends();
            assertTrue(got.isEmpty(), msg(why + "; ended: " + got));
        } while (System.nanoTime() < until);
    }

    /** The owner reuses an ended hold's blocks: it writes another pattern into them. */
    void reuse(HoldEnd end) {
        for (int b : end.blocks()) {
            BlockPattern.fill(ownerTransport().region().block(b), BlockPattern.seed(REUSED, b));
        }
    }

    /** Whether the holder's local block {@code local} holds what the owner's block {@code ownerBlock} held first. */
    boolean holderHasOwners(int local, int ownerBlock) {
        MemorySegment s = holderTransport().region().block(local);
        return BlockPattern.firstMismatch(s, BlockPattern.seed(OWNER, ownerBlock)) == -1;
    }

    /** Whether the owner's block {@code ownerBlock} holds what the holder's block {@code local} held first. */
    boolean ownerHasHolders(int ownerBlock, int local) {
        MemorySegment s = ownerTransport().region().block(ownerBlock);
        return BlockPattern.firstMismatch(s, BlockPattern.seed(HOLDER, local)) == -1;
    }

    /** Waits for {@code f}, which must complete normally. */
    void done(CompletableFuture<?> f, String what) throws InterruptedException {
        try {
            f.get(env.timeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError(msg(what + " failed: " + e.getCause()), e.getCause());
        } catch (TimeoutException e) {
            fail(msg(what + " did not end within " + env.timeout().toMillis() + " ms"));
        }
    }

    /** Waits for {@code f}, which must fail with a {@link LeaseException}; returns it. */
    LeaseException leaseFailure(CompletableFuture<?> f, String what) throws InterruptedException {
        try {
            f.get(env.timeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof LeaseException le) {
                return le;
            }
            throw new AssertionError(msg(what + " failed with " + e.getCause() + ", not a LeaseException"),
                    e.getCause());
        } catch (TimeoutException e) {
            fail(msg(what + " did not end within " + env.timeout().toMillis() + " ms"));
        }
        throw new AssertionError(msg(what + " succeeded; the lease did not cover it"));
    }

    @Override
    public void close() {
        Gate g = gate;
        if (g != null) {
            g.open();
        }
        for (int i = opened.size() - 1; i >= 0; i--) {
            try {
                opened.get(i).close();
            } catch (Exception e) {
                // closing goes on; the rule's outcome is decided already
            }
        }
        arena.close();
    }
}
