package io.blockxfer.tck;

import static org.junit.jupiter.api.Assertions.fail;

import io.blockxfer.transport.CancelMode;
import io.blockxfer.transport.Capability;
import io.blockxfer.transport.CompletionHandler;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.RegistrationSupersededException;
import io.blockxfer.transport.TransferFuture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * The stress rule's workload and its ledger: two submitters writing and reading disjoint block
 * sets to random peers, two pollers polling random peers (and sometimes all), a canceller cancelling
 * recent ids in both modes, and a churner removing and re-adding peers, synchronously and not.
 * Every completion is verified byte for byte; afterwards every id must have been returned by one
 * submit only and have ended exactly once, through its own peer's poll (or pollAll), unless a
 * cancel released it; no poll that started after a cancel returned may report an id that cancel
 * released (an immediate cancel, or a wait cancel that did not return it), and every id a wait
 * cancel returned must be reported.
 *
 * <p>{@link #withWaitsAndFutures()} mixes the other two surfaces in: the pollers wait half the time
 * ({@code poll(peer, handler, limit)}, {@code pollAll(handler, limit)}), and a third of the
 * submits are asynchronous, their futures ending them; the ledger then also requires that no
 * asynchronous id is ever reported by a poll or a wait, and that every future completes.
 *
 * <p>Block ownership keeps verification exact under concurrency: submitter {@code s} writes local
 * blocks {@code 16s..16s+15} to target blocks {@code 32+16s..}, always the same pairs, and reads
 * target blocks {@code 16s..16s+15} (never written) into local blocks {@code 32+16s..}.
 *
 * <p><b>Thread safety:</b> runs its own threads; {@link #run} and {@link #verify} on the test thread.
 */
final class StressRun {

    private static final int SUBMITTERS = 2;

    @SuppressWarnings("ArrayRecordComponent") // a carrier of one submit's arguments, never compared or hashed
    private record Transfer(String peer, boolean write, int[] local, int[] remote) {
    }

    /** One report; {@code polledPeer} is null for a report of pollAll. */
    private record Report(@Nullable String polledPeer, boolean done, long pollStarted) {
    }

    private final Fixture fx;
    private final DataTransport transport;
    private final String[] peers;
    private final List<TargetPeer> targets = new ArrayList<>();
    private final Map<Long, Transfer> submitted = new ConcurrentHashMap<>();
    private final Map<Long, List<Report>> reports = new ConcurrentHashMap<>();
    private final Map<Long, Boolean> cancelled = new ConcurrentHashMap<>();
    /** When (on {@link #clock}) a cancel that released an id returned. */
    private final Map<Long, Long> releasedAt = new ConcurrentHashMap<>();
    private final AtomicLong clock = new AtomicLong();
    private final AtomicReferenceArray<Long> recent = new AtomicReferenceArray<>(256);
    private final AtomicLong recentCursor = new AtomicLong();
    private final AtomicReference<Throwable> firstError = new AtomicReference<>();
    private final List<CompletableFuture<Void>> registrations = new ArrayList<>();
    private final boolean reads;
    private volatile boolean stop;
    // ---- waits and futures (withWaitsAndFutures)
    private boolean mixed;
    private final Map<Long, TransferFuture> futures = new ConcurrentHashMap<>();

    StressRun(Fixture fx, DataTransport transport, int peerCount) {
        this.fx = fx;
        this.transport = transport;
        this.peers = new String[peerCount];
        this.reads = fx.has(Capability.READ);
        for (int p = 0; p < peerCount; p++) {
            peers[p] = "stress-" + p;
            targets.add(fx.connectedTarget(transport, peers[p]));
        }
    }

    long submitted() {
        return submitted.size();
    }

    /** This run, with waits beside polls and asynchronous submits beside plain ones. */
    StressRun withWaitsAndFutures() {
        mixed = true;
        return this;
    }

    /** How many asynchronous transfers were submitted. */
    long asyncSubmitted() {
        return futures.size();
    }

    void run(Duration duration) throws InterruptedException {
        List<Thread> threads = new ArrayList<>();
        for (int s = 0; s < SUBMITTERS; s++) {
            int submitter = s;
            threads.add(Thread.ofPlatform().name("tck-submit-" + s).start(guard(() -> submit(submitter))));
        }
        threads.add(Thread.ofPlatform().name("tck-poll-0").start(guard(this::poll)));
        threads.add(Thread.ofPlatform().name("tck-poll-1").start(guard(this::poll)));
        threads.add(Thread.ofPlatform().name("tck-cancel").start(guard(this::cancel)));
        threads.add(Thread.ofPlatform().name("tck-churn").start(guard(this::churn)));
        long end = System.nanoTime() + duration.toNanos();
        while (System.nanoTime() < end && firstError.get() == null) {
            Thread.sleep(20);
        }
        stop = true;
        for (Thread t : threads) {
            t.join(fx.env.timeout().toMillis());
        }
        synchronized (registrations) {
            for (CompletableFuture<Void> f : registrations) {
                try {
                    f.get(fx.env.timeout().toMillis(), TimeUnit.MILLISECONDS);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof RegistrationSupersededException)) {
                        firstError.compareAndSet(null, e.getCause());
                    }
                } catch (java.util.concurrent.TimeoutException e) {
                    firstError.compareAndSet(null, new AssertionError(fx.msg("a registration never completed")));
                }
            }
        }
    }

    private Runnable guard(Runnable body) {
        return () -> {
            try {
                body.run();
            } catch (Throwable t) {
                firstError.compareAndSet(null, t);
            }
        };
    }

    private void submit(int submitter) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (!stop && firstError.get() == null) {
            if (submitted.size() - reports.size() - cancelled.size() > 4_000) {
                LockSupport.parkNanos(100_000);
                continue;
            }
            String peer = peers[random.nextInt(peers.length)];
            boolean write = !reads || random.nextBoolean();
            int count = 1 + random.nextInt(8);
            int first = random.nextInt(16 - count + 1);
            int[] local = new int[count];
            int[] remote = new int[count];
            for (int i = 0; i < count; i++) {
                int k = random.nextInt(4) == 0 ? random.nextInt(16) : first + i;
                local[i] = write ? 16 * submitter + k : 32 + 16 * submitter + k;
                remote[i] = write ? 32 + 16 * submitter + k : 16 * submitter + k;
            }
            if (mixed && random.nextInt(3) == 0) {
                submitAsync(peer, write, local, remote);
                continue;
            }
            long id = write ? transport.writeBlocks(peer, local, remote) : transport.readBlocks(peer, local, remote);
            if (id != DataTransport.NOT_SUBMITTED) {
                Transfer previous = submitted.putIfAbsent(id, new Transfer(peer, write, local, remote));
                if (previous != null) {
                    fail(fx.msg("id " + id + " was returned by two submits (to '" + previous.peer + "' and '" + peer
                            + "')"));
                }
                recent.set((int) (recentCursor.getAndIncrement() & 255), id);
            }
        }
    }

    private void submitAsync(String peer, boolean write, int[] local, int[] remote) {
        TransferFuture f = write ? transport.writeBlocksAsync(peer, local, remote)
                : transport.readBlocksAsync(peer, local, remote);
        long id = f.transferId();
        if (id == DataTransport.NOT_SUBMITTED) {
            if (!f.isCompletedExceptionally()) {
                fail(fx.msg("a future to unregistered peer '" + peer + "' is not failed: " + f));
            }
            return;
        }
        Transfer previous = submitted.putIfAbsent(id, new Transfer(peer, write, local, remote));
        if (previous != null) {
            fail(fx.msg("id " + id + " was returned by two submits (to '" + previous.peer + "' and '" + peer + "')"));
        }
        futures.put(id, f);
        recent.set((int) (recentCursor.getAndIncrement() & 255), id);
        // the callback records its own failures; the dependent future it returns carries nothing more
        var unused = f.whenComplete((v, e) -> {
            if (e instanceof java.util.concurrent.CancellationException) {
                return; // a cancel released it; the canceller notes that
            }
            try {
                onReport(id, peer, e == null, Long.MIN_VALUE);
            } catch (Throwable t) {
                firstError.compareAndSet(null, t);
            }
        });
    }

    private void poll() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (!stop && firstError.get() == null) {
            long started = clock.incrementAndGet();
            boolean wait = mixed && random.nextBoolean();
            try {
                if (random.nextInt(20) == 0) {
                    CompletionHandler h = (id, ok) -> onPolledReport(id, null, ok, started);
                    if (wait) {
                        transport.pollAll(h, 2, TimeUnit.MILLISECONDS);
                    } else {
                        transport.pollAll(h);
                    }
                } else {
                    String peer = peers[random.nextInt(peers.length)];
                    CompletionHandler h = (id, ok) -> onPolledReport(id, peer, ok, started);
                    if (wait) {
                        transport.poll(peer, h, 2, TimeUnit.MILLISECONDS);
                    } else {
                        transport.poll(peer, h);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** A report of a poll or a wait, which must never be of an asynchronous transfer. */
    private void onPolledReport(long id, @Nullable String polledPeer, boolean done, long pollStarted) {
        if (futures.containsKey(id)) {
            fail(fx.msg("asynchronous transfer " + id + " was reported by " + (polledPeer == null ? "pollAll"
                    : "a poll or wait of '" + polledPeer + "'") + "; its future owns it"));
        }
        onReport(id, polledPeer, done, pollStarted);
    }

    private void onReport(long id, @Nullable String polledPeer, boolean done, long pollStarted) {
        reports.computeIfAbsent(id, k -> new java.util.concurrent.CopyOnWriteArrayList<>())
                .add(new Report(polledPeer, done, pollStarted));
        Long released = releasedAt.get(id);
        if (released != null && pollStarted > released) {
            fail(fx.msg("transfer " + id + " was reported (" + (done ? "done" : "failed") + ") by a poll that started"
                    + " after a cancel had released it"));
        }
        if (!done) {
            return;
        }
        Transfer t = waitForSubmit(id);
        if (t == null) {
            return;
        }
        for (int i = 0; i < t.local.length; i++) {
            if (t.write) {
                TargetPeer target = targets.get(Integer.parseInt(t.peer.substring("stress-".length())));
                fx.assertTargetBlock(target, t.remote[i], BlockPattern.seed(Fixture.LOCAL, t.local[i]),
                        "stress WRITE " + id);
            } else {
                fx.assertLocalBlock(transport, t.local[i], BlockPattern.seed(Fixture.TARGET, t.remote[i]),
                        "stress READ " + id);
            }
        }
    }

    private @Nullable Transfer waitForSubmit(long id) {
        for (int spins = 0; spins < 10_000; spins++) {
            Transfer t = submitted.get(id);
            if (t != null) {
                return t;
            }
            Thread.onSpinWait();
        }
        return submitted.get(id);
    }

    private void cancel() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (!stop && firstError.get() == null) {
            LockSupport.parkNanos(500_000);
            long[] ids = new long[1 + random.nextInt(8)];
            int n = 0;
            for (int i = 0; i < ids.length; i++) {
                Long id = recent.get(random.nextInt(256));
                if (id != null) {
                    ids[n++] = id;
                }
            }
            ids = java.util.Arrays.copyOf(ids, n);
            if (random.nextBoolean()) {
                long[] still = transport.cancel(ids, CancelMode.IMMEDIATE);
                if (still.length != 0) {
                    fail(fx.msg("an immediate cancel returned ids " + java.util.Arrays.toString(still)));
                }
                long now = clock.incrementAndGet();
                for (long id : ids) {
                    cancelled.put(id, true);
                    releasedAt.putIfAbsent(id, now);
                }
            } else {
                long[] still = transport.cancel(ids, CancelMode.WAIT);
                long now = clock.incrementAndGet();
                java.util.Arrays.sort(still);
                for (long id : still) {
                    if (!contains(ids, id)) {
                        fail(fx.msg("a wait cancel of " + java.util.Arrays.toString(ids) + " returned id " + id));
                    }
                }
                for (long id : ids) {
                    if (java.util.Arrays.binarySearch(still, id) < 0) {
                        cancelled.put(id, true);
                        releasedAt.putIfAbsent(id, now);
                    }
                }
            }
        }
    }

    private static boolean contains(long[] ids, long id) {
        for (long x : ids) {
            if (x == id) {
                return true;
            }
        }
        return false;
    }

    private void churn() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (!stop && firstError.get() == null) {
            LockSupport.parkNanos(20_000_000);
            int p = random.nextInt(peers.length);
            transport.removePeer(peers[p]);
            LockSupport.parkNanos(2_000_000);
            switch (random.nextInt(3)) {
                case 0 -> transport.addPeer(peers[p], targets.get(p).descriptor());
                case 1 -> {
                    synchronized (registrations) {
                        registrations.add(transport.addPeerAsync(peers[p], targets.get(p).descriptor()));
                    }
                }
                default -> {
                    synchronized (registrations) {
                        registrations.add(transport.addPeerAsync(peers[p], targets.get(p).descriptor()));
                        registrations.add(transport.addPeerAsync(peers[p], targets.get(p).descriptor()));
                    }
                }
            }
        }
    }

    /** Whether transfer {@code id} has not ended yet: a pending future, or a polled id neither reported nor cancelled. */
    private boolean owed(long id) {
        TransferFuture f = futures.get(id);
        return f != null ? !f.isDone() : !reports.containsKey(id) && !cancelled.containsKey(id);
    }

    /** Drains what is owed and checks the ledger. */
    void verify() {
        if (firstError.get() != null) {
            Throwable t = firstError.get();
            throw t instanceof AssertionError ae ? ae : new AssertionError(fx.msg("stress thread failed: " + t), t);
        }
        long deadline = System.nanoTime() + fx.env.timeout().toNanos();
        while (true) {
            long started = clock.incrementAndGet();
            transport.pollAll((id, ok) -> onPolledReport(id, null, ok, started));
            long owed = submitted.keySet().stream().filter(this::owed).count();
            if (owed == 0) {
                break;
            }
            if (System.nanoTime() - deadline > 0) {
                fail(fx.msg(owed + " transfers were never reported and not cancelled, e.g. " + submitted.keySet()
                        .stream().filter(this::owed).limit(10).toList()));
            }
            LockSupport.parkNanos(1_000_000);
        }
        if (firstError.get() != null) {
            Throwable t = firstError.get();
            throw t instanceof AssertionError ae ? ae : new AssertionError(fx.msg("verification failed: " + t), t);
        }
        reports.forEach((id, list) -> {
            Transfer t = submitted.get(id);
            if (t == null) {
                throw new AssertionError(fx.msg("transfer " + id + " was reported but never submitted"));
            }
            if (list.size() > 1) {
                fail(fx.msg("transfer " + id + " to '" + t.peer + "' was reported " + list.size() + " times: " + list));
            }
            String polled = list.get(0).polledPeer();
            if (polled != null && !polled.equals(t.peer)) {
                fail(fx.msg("transfer " + id + " to '" + t.peer + "' was reported by poll('" + polled + "')"));
            }
        });
    }
}
