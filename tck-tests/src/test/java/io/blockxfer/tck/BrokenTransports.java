package io.blockxfer.tck;

import io.blockxfer.transport.CancelMode;
import io.blockxfer.transport.CompletionHandler;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.IncompatiblePeerException;
import io.blockxfer.transport.MalformedPeerDescriptorException;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.PeerTraffic;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.RegistrationSupersededException;
import io.blockxfer.transport.TransferFuture;
import io.blockxfer.transport.TransportException;
import io.blockxfer.transport.UnauthenticatedPeerException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.UnaryOperator;

/**
 * Broken {@link DataTransport}s that bypass the managed transport: decorators of a working
 * loopback initiator, each with one defect real backend authors make. The kit's own tests run
 * each against the rule that must catch it. Decorators that the descriptor rules must meet in a
 * child JVM are public classes with public no-argument constructors, so the child can make its own.
 */
final class BrokenTransports {

    private BrokenTransports() {
    }

    // ------------------------------------------------------------------ G

    static UnaryOperator<DataTransport> descriptorWithShiftedBase() {
        return t -> new ForwardingTransport(t) {
            @Override
            public PeerDescriptor localDescriptor() {
                PeerDescriptor d = delegate.localDescriptor();
                return Fixture.with(d, d.backend(), d.fingerprint(), d.baseAddress() + d.blockLength(), d.numBlocks(),
                        d.blockLength(), d.metadata());
            }
        };
    }

    static UnaryOperator<DataTransport> descriptorChangesEveryCall() {
        return t -> new ForwardingTransport(t) {
            final AtomicInteger calls = new AtomicInteger();

            @Override
            public PeerDescriptor localDescriptor() {
                PeerDescriptor d = delegate.localDescriptor();
                byte[] m = Arrays.copyOf(d.metadata(), d.metadataLength() + 1);
                m[m.length - 1] = (byte) calls.incrementAndGet();
                return Fixture.with(d, d.backend(), d.fingerprint(), d.baseAddress(), d.numBlocks(), d.blockLength(), m);
            }
        };
    }

    // ------------------------------------------------------------------ P

    static UnaryOperator<DataTransport> unknownPeerThrows() {
        return t -> new ForwardingTransport(t) {
            @Override
            public long writeBlocks(String peerId, int[] l, int[] r) {
                long id = delegate.writeBlocks(peerId, l, r);
                if (id == DataTransport.NOT_SUBMITTED) {
                    throw new IllegalArgumentException("unknown peer " + peerId);
                }
                return id;
            }
        };
    }

    static UnaryOperator<DataTransport> asyncChecksOnTheRegistrationThread() {
        return t -> new ForwardingTransport(t) {
            @Override
            public CompletableFuture<Void> addPeerAsync(String peerId, PeerDescriptor peer) {
                return CompletableFuture.runAsync(() -> delegate.addPeer(peerId, peer));
            }
        };
    }

    static UnaryOperator<DataTransport> relabelsBlockLength() {
        return t -> new ForwardingTransport(t) {
            @Override
            public void addPeer(String peerId, PeerDescriptor d) {
                long mine = delegate.region().blockLength();
                delegate.addPeer(peerId, d.blockLength() == mine ? d : Fixture.with(d, d.backend(), d.fingerprint(),
                        d.baseAddress(), d.numBlocks(), mine, d.metadata()));
            }
        };
    }

    static UnaryOperator<DataTransport> relabelsFingerprint() {
        return t -> new ForwardingTransport(t) {
            @Override
            public void addPeer(String peerId, PeerDescriptor d) {
                delegate.addPeer(peerId, Fixture.with(d, d.backend(), delegate.configFingerprint(), d.baseAddress(),
                        d.numBlocks(), d.blockLength(), d.metadata()));
            }
        };
    }

    static UnaryOperator<DataTransport> rejectedReAddRemovesThePeer() {
        return t -> new ForwardingTransport(t) {
            @Override
            public void addPeer(String peerId, PeerDescriptor d) {
                delegate.removePeer(peerId);
                delegate.addPeer(peerId, d);
            }
        };
    }

    static UnaryOperator<DataTransport> removeAlwaysTrue() {
        return t -> new ForwardingTransport(t) {
            @Override
            public boolean removePeer(String peerId) {
                delegate.removePeer(peerId);
                return true;
            }
        };
    }

    static UnaryOperator<DataTransport> removeDropsInFlightReports() {
        return t -> new RewritingTransport(t) {
            final Set<Long> dropped = ConcurrentHashMap.newKeySet();

            @Override
            public boolean removePeer(String peerId) {
                peerOf.forEach((id, p) -> {
                    if (p.equals(peerId) && !reported.contains(id)) {
                        dropped.add(id);
                    }
                });
                return delegate.removePeer(peerId);
            }

            @Override
            List<Report> rewrite(String peer, List<Report> reports) {
                return reports.stream().filter(x -> !dropped.contains(x.id())).toList();
            }
        };
    }

    static UnaryOperator<DataTransport> hidesFailures() {
        return t -> new RewritingTransport(t) {
            @Override
            List<Report> rewrite(String peer, List<Report> reports) {
                return reports.stream().map(x -> new Report(x.id(), true)).toList();
            }
        };
    }

    static UnaryOperator<DataTransport> reAddKeepsTheOldRegistration() {
        return t -> new ForwardingTransport(t) {
            final Set<String> registered = ConcurrentHashMap.newKeySet();

            @Override
            public void addPeer(String peerId, PeerDescriptor d) {
                if (registered.contains(peerId)) {
                    return;
                }
                delegate.addPeer(peerId, d);
                registered.add(peerId);
            }

            @Override
            public boolean removePeer(String peerId) {
                registered.remove(peerId);
                return delegate.removePeer(peerId);
            }
        };
    }

    static UnaryOperator<DataTransport> asyncFutureCompletesBeforePublishing() {
        return t -> new ForwardingTransport(t) {
            @Override
            public CompletableFuture<Void> addPeerAsync(String peerId, PeerDescriptor peer) {
                // the defect: the registration runs later, detached from the future handed out
                var unused = CompletableFuture.runAsync(() -> {
                    LockSupport.parkNanos(1_000_000_000L);
                    try {
                        delegate.addPeer(peerId, peer);
                    } catch (IllegalStateException closedMeanwhile) {
                        // the rule is over
                    }
                });
                return CompletableFuture.completedFuture(null);
            }
        };
    }

    static UnaryOperator<DataTransport> supersededRegistrationPublishesAnyway() {
        return t -> new ForwardingTransport(t) {
            @Override
            public CompletableFuture<Void> addPeerAsync(String peerId, PeerDescriptor peer) {
                return delegate.addPeerAsync(peerId, peer).exceptionallyCompose(e -> {
                    Throwable cause = e instanceof CompletionException ce ? ce.getCause() : e;
                    if (cause instanceof RegistrationSupersededException) {
                        return CompletableFuture.runAsync(() -> delegate.addPeer(peerId, peer));
                    }
                    return CompletableFuture.failedFuture(cause);
                });
            }
        };
    }

    static UnaryOperator<DataTransport> pollAllSkipsRemovedPeers() {
        return t -> new ForwardingTransport(t) {
            final Set<String> registered = ConcurrentHashMap.newKeySet();

            @Override
            public void addPeer(String peerId, PeerDescriptor d) {
                delegate.addPeer(peerId, d);
                registered.add(peerId);
            }

            @Override
            public boolean removePeer(String peerId) {
                registered.remove(peerId);
                return delegate.removePeer(peerId);
            }

            @Override
            public PollResult pollAll() {
                List<RewritingTransport.Report> all = new ArrayList<>();
                for (String p : registered) {
                    all.addAll(RewritingTransport.reports(delegate.poll(p)));
                }
                return RewritingTransport.result(all);
            }

            @Override
            public int pollAll(CompletionHandler h) {
                int n = 0;
                for (String p : registered) {
                    n += delegate.poll(p, h);
                }
                return n;
            }
        };
    }

    static UnaryOperator<DataTransport> reAddDropsOwedReports() {
        return t -> new ForwardingTransport(t) {
            final Set<String> removed = ConcurrentHashMap.newKeySet();

            @Override
            public boolean removePeer(String peerId) {
                removed.add(peerId);
                return delegate.removePeer(peerId);
            }

            @Override
            public void addPeer(String peerId, PeerDescriptor d) {
                if (removed.remove(peerId)) {
                    delegate.poll(peerId); // a fresh start: what the old registration owed is lost
                }
                delegate.addPeer(peerId, d);
            }
        };
    }

    static UnaryOperator<DataTransport> retireReportsCompletedAsFailed() {
        return t -> new RewritingTransport(t) {
            final Map<String, List<Long>> owed = new ConcurrentHashMap<>();
            final Set<String> registered = ConcurrentHashMap.newKeySet();

            private void retire(String peerId) {
                List<Long> ids = new ArrayList<>();
                delegate.poll(peerId).forEach((id, ok) -> ids.add(id));
                owed.computeIfAbsent(peerId, k -> new ArrayList<>()).addAll(ids);
            }

            @Override
            public void addPeer(String peerId, PeerDescriptor d) {
                if (registered.contains(peerId)) {
                    retire(peerId);
                }
                delegate.addPeer(peerId, d);
                registered.add(peerId);
            }

            @Override
            public boolean removePeer(String peerId) {
                retire(peerId);
                registered.remove(peerId);
                return delegate.removePeer(peerId);
            }

            @Override
            List<Report> rewrite(String peer, List<Report> reports) {
                List<Long> failed = peer == null ? null : owed.remove(peer);
                if (failed == null) {
                    return reports;
                }
                List<Report> out = new ArrayList<>(reports);
                failed.forEach(id -> out.add(new Report(id, false)));
                return out;
            }
        };
    }

    static UnaryOperator<DataTransport> trafficCountsOnlyWhatIsInFlight() {
        return t -> new ForwardingTransport(t) {
            @Override
            public Optional<PeerTraffic> traffic(String peerId) {
                return delegate.traffic(peerId).map(p -> new PeerTraffic(p.inFlight(), p.inFlight()));
            }
        };
    }

    /** Counts a peer's synchronous submits in flight until the next poll of that peer, ended or not. */
    static UnaryOperator<DataTransport> trafficCountsEndedTransfersUntilPolled() {
        return t -> new ForwardingTransport(t) {
            final Map<String, Integer> sincePoll = new ConcurrentHashMap<>();

            @Override
            public long writeBlocks(String peerId, int[] l, int[] r) {
                long id = delegate.writeBlocks(peerId, l, r);
                sincePoll.merge(peerId, 1, Integer::sum);
                return id;
            }

            @Override
            public PollResult poll(String peerId) {
                sincePoll.remove(peerId);
                return delegate.poll(peerId);
            }

            @Override
            public int poll(String peerId, CompletionHandler h) {
                sincePoll.remove(peerId);
                return delegate.poll(peerId, h);
            }

            @Override
            public Optional<PeerTraffic> traffic(String peerId) {
                int unpolled = sincePoll.getOrDefault(peerId, 0);
                return delegate.traffic(peerId).map(p -> new PeerTraffic(p.submitted(),
                        (int) Math.min(p.submitted(), Math.max(p.inFlight(), unpolled))));
            }
        };
    }

    // ------------------------------------------------------------------ W

    static UnaryOperator<DataTransport> writesOneBlockOff() {
        return t -> new ForwardingTransport(t) {
            @Override
            public long writeBlocks(String peerId, int[] l, int[] r) {
                int[] shifted = r.clone();
                for (int i = 0; i < shifted.length; i++) {
                    shifted[i] = (shifted[i] + 1) % 64;
                }
                return delegate.writeBlocks(peerId, l, shifted);
            }
        };
    }

    static UnaryOperator<DataTransport> acceptsEmptyTransfers() {
        return t -> new ForwardingTransport(t) {
            @Override
            public long writeBlocks(String peerId, int[] l, int[] r) {
                if (l != null && r != null && l.length == 0 && r.length == 0) {
                    return delegate.writeBlocks(peerId, new int[] {0}, new int[] {0});
                }
                return delegate.writeBlocks(peerId, l, r);
            }
        };
    }

    static UnaryOperator<DataTransport> rejectedCallsConsumeIds() {
        return t -> new IdMappingTransport(t) {
            final AtomicLong next = new AtomicLong();

            @Override
            long expose(String peer, long delegateId) {
                return next.getAndIncrement();
            }

            @Override
            public long writeBlocks(String peerId, int[] l, int[] r) {
                try {
                    return super.writeBlocks(peerId, l, r);
                } catch (IllegalArgumentException e) {
                    next.incrementAndGet(); // the id was taken before the checks
                    throw e;
                }
            }
        };
    }

    static UnaryOperator<DataTransport> clampsOutOfRangeIndices() {
        return t -> new ForwardingTransport(t) {
            @Override
            public long writeBlocks(String peerId, int[] l, int[] r) {
                int[] remote = r.clone();
                for (int i = 0; i < remote.length; i++) {
                    remote[i] = Math.floorMod(remote[i], 16);
                }
                int[] local = l.clone();
                for (int i = 0; i < local.length; i++) {
                    local[i] = Math.floorMod(local[i], 64);
                }
                return delegate.writeBlocks(peerId, local, remote);
            }
        };
    }

    static UnaryOperator<DataTransport> nullPeerIsNotSubmitted() {
        return t -> new ForwardingTransport(t) {
            @Override
            public long writeBlocks(String peerId, int[] l, int[] r) {
                return peerId == null ? DataTransport.NOT_SUBMITTED : delegate.writeBlocks(peerId, l, r);
            }
        };
    }

    // ------------------------------------------------------------------ R

    static UnaryOperator<DataTransport> readWithoutCapabilityNotSubmitted() {
        return t -> new ForwardingTransport(t) {
            @Override
            public long readBlocks(String peerId, int[] l, int[] r) {
                return DataTransport.NOT_SUBMITTED;
            }
        };
    }

    // ------------------------------------------------------------------ C

    static UnaryOperator<DataTransport> idsCountedPerPeer() {
        return t -> new IdMappingTransport(t) {
            final Map<String, AtomicLong> counters = new ConcurrentHashMap<>();

            @Override
            long expose(String peer, long delegateId) {
                return counters.computeIfAbsent(peer, k -> new AtomicLong()).getAndIncrement();
            }
        };
    }

    static UnaryOperator<DataTransport> dropsACompletion() {
        return t -> new RewritingTransport(t) {
            final AtomicBoolean dropped = new AtomicBoolean();

            @Override
            List<Report> rewrite(String peer, List<Report> reports) {
                if (!reports.isEmpty() && dropped.compareAndSet(false, true)) {
                    return reports.subList(1, reports.size());
                }
                return reports;
            }
        };
    }

    static UnaryOperator<DataTransport> reportsACompletionTwice() {
        return t -> new RewritingTransport(t) {
            final AtomicLong last = new AtomicLong(-1);

            @Override
            List<Report> rewrite(String peer, List<Report> reports) {
                if (reports.isEmpty() && last.get() >= 0) {
                    return List.of(new Report(last.getAndSet(-2), true));
                }
                if (!reports.isEmpty()) {
                    last.compareAndSet(-1, reports.get(0).id());
                }
                return reports;
            }
        };
    }

    static UnaryOperator<DataTransport> unscopedPoll() {
        return t -> new ForwardingTransport(t) {
            @Override
            public PollResult poll(String peerId) {
                return delegate.pollAll();
            }
        };
    }

    static UnaryOperator<DataTransport> pollAllVisitsOnePeer() {
        return t -> new ForwardingTransport(t) {
            final List<String> peers = new java.util.concurrent.CopyOnWriteArrayList<>();

            @Override
            public void addPeer(String peerId, PeerDescriptor d) {
                delegate.addPeer(peerId, d);
                peers.add(peerId);
            }

            @Override
            public PollResult pollAll() {
                return peers.isEmpty() ? delegate.pollAll() : delegate.poll(peers.get(0));
            }
        };
    }

    static UnaryOperator<DataTransport> handlerCountLags() {
        return t -> new ForwardingTransport(t) {
            int last;

            @Override
            public synchronized int poll(String peerId, CompletionHandler h) {
                int n = delegate.poll(peerId, h);
                int answer = last;
                last = n;
                return answer;
            }
        };
    }

    /** A transport whose submits and polls take its one lock, as a transport with one big lock would. */
    private static class Locked extends ForwardingTransport {
        Locked(DataTransport delegate) {
            super(delegate);
        }

        @Override
        public synchronized long writeBlocks(String peerId, int[] l, int[] r) {
            return delegate.writeBlocks(peerId, l, r);
        }

        @Override
        public synchronized PollResult poll(String peerId) {
            return delegate.poll(peerId);
        }
    }

    static UnaryOperator<DataTransport> handlerCalledUnderTheLock() {
        return t -> new Locked(t) {
            @Override
            public synchronized int poll(String peerId, CompletionHandler h) {
                return delegate.poll(peerId, h);
            }
        };
    }

    /**
     * Completes each asynchronous WRITE's future holding the lock its submits and polls take, as a
     * transport that completes futures from inside its own locked section would: a dependent that
     * waits for another thread's submit or poll never sees it return.
     */
    static UnaryOperator<DataTransport> dependentRunsUnderTheLock() {
        return t -> new Locked(t) {
            @Override
            public TransferFuture writeBlocksAsync(String peerId, int[] l, int[] r) {
                TransferFuture inner = delegate.writeBlocksAsync(peerId, l, r);
                TransferFuture outer = new TransferFuture(inner.transferId(), peerId, id -> inner.cancel(false));
                var unused = inner.whenComplete((v, e) -> {
                    synchronized (this) {
                        if (e == null) {
                            outer.complete(null);
                        } else {
                            outer.completeExceptionally(e);
                        }
                    }
                });
                return outer;
            }
        };
    }

    /** Keeps a boxed copy of every submit's remote indices, as a transport that logs them would: an object per block. */
    static UnaryOperator<DataTransport> allocatesPerBlock() {
        return t -> new ForwardingTransport(t) {
            volatile List<Integer> lastRemote = List.of();

            @Override
            public long writeBlocks(String peerId, int[] l, int[] r) {
                List<Integer> copy = new ArrayList<>(r.length);
                for (int b : r) {
                    copy.add(1_000 + b); // beyond Integer's cache: a new object per block
                }
                lastRemote = copy;
                return delegate.writeBlocks(peerId, l, r);
            }
        };
    }

    static UnaryOperator<DataTransport> handlerReportsFailedAsDone() {
        return t -> new ForwardingTransport(t) {
            @Override
            public int poll(String peerId, CompletionHandler h) {
                return h == null ? delegate.poll(peerId, null) : delegate.poll(peerId, (id, ok) -> h.onTerminal(id, true));
            }

            @Override
            public int pollAll(CompletionHandler h) {
                return h == null ? delegate.pollAll(null) : delegate.pollAll((id, ok) -> h.onTerminal(id, true));
            }
        };
    }

    static UnaryOperator<DataTransport> reportsInSubmissionOrder() {
        return t -> new RewritingTransport(t) {
            final Map<String, List<Long>> order = new HashMap<>();
            final Map<Long, Report> ready = new HashMap<>();

            @Override
            synchronized long submitted(String peer, long id) {
                if (id >= 0) {
                    order.computeIfAbsent(peer, k -> new ArrayList<>()).add(id);
                }
                return super.submitted(peer, id);
            }

            @Override
            synchronized List<Report> rewrite(String peer, List<Report> reports) {
                reports.forEach(x -> ready.put(x.id(), x));
                List<Report> out = new ArrayList<>();
                for (Map.Entry<String, List<Long>> e : order.entrySet()) {
                    if (peer != null && !peer.equals(e.getKey())) {
                        continue;
                    }
                    List<Long> ids = e.getValue();
                    while (!ids.isEmpty() && ready.containsKey(ids.get(0))) {
                        out.add(ready.remove(ids.remove(0)));
                    }
                }
                return out;
            }
        };
    }

    static UnaryOperator<DataTransport> deadlineCheckedBeforeStatus() {
        long deadline = Long.getLong("blockxfer.tck.deadlineMillis", 1_500) * 1_000_000L;
        return t -> new RewritingTransport(t) {
            @Override
            List<Report> rewrite(String peer, List<Report> reports) {
                long now = System.nanoTime();
                return reports.stream().map(x -> {
                    Long at = submittedAt.get(x.id());
                    return at != null && now - at > deadline ? new Report(x.id(), false) : x;
                }).toList();
            }
        };
    }

    // ------------------------------------------------------------------ X

    static UnaryOperator<DataTransport> ignoresImmediateCancel() {
        return t -> new ForwardingTransport(t) {
            @Override
            public long[] cancel(long[] ids, CancelMode mode) {
                return mode == CancelMode.IMMEDIATE ? new long[0] : delegate.cancel(ids, mode);
            }
        };
    }

    static UnaryOperator<DataTransport> immediateCancelReturnsIds() {
        return t -> new ForwardingTransport(t) {
            @Override
            public long[] cancel(long[] ids, CancelMode mode) {
                return delegate.cancel(ids, CancelMode.WAIT);
            }
        };
    }

    static UnaryOperator<DataTransport> waitCancelReturnsUnknownIds() {
        return t -> new ForwardingTransport(t) {
            @Override
            public long[] cancel(long[] ids, CancelMode mode) {
                long[] still = delegate.cancel(ids, mode);
                return mode == CancelMode.WAIT ? Arrays.stream(ids).distinct().toArray() : still;
            }
        };
    }

    static UnaryOperator<DataTransport> waitCancelReleasesWhatItReturns() {
        return t -> new ForwardingTransport(t) {
            @Override
            public long[] cancel(long[] ids, CancelMode mode) {
                long[] still = delegate.cancel(ids, mode);
                if (mode == CancelMode.WAIT && still.length > 0) {
                    delegate.cancel(still, CancelMode.IMMEDIATE);
                }
                return still;
            }
        };
    }

    static UnaryOperator<DataTransport> cancelRejectsUnknownIds() {
        return t -> new RewritingTransport(t) {
            @Override
            public long[] cancel(long[] ids, CancelMode mode) {
                for (long id : ids) {
                    if (!peerOf.containsKey(id) || reported.contains(id)) {
                        throw new IllegalArgumentException("transfer " + id + " is not in flight");
                    }
                }
                return delegate.cancel(ids, mode);
            }
        };
    }

    static UnaryOperator<DataTransport> waitCancelActsAsImmediate() {
        return t -> new ForwardingTransport(t) {
            @Override
            public long[] cancel(long[] ids, CancelMode mode) {
                return delegate.cancel(ids, CancelMode.IMMEDIATE);
            }
        };
    }

    static UnaryOperator<DataTransport> waitCancelReturnsCompletedTransfers() {
        return t -> new RewritingTransport(t) {
            @Override
            public long[] cancel(long[] ids, CancelMode mode) {
                if (mode == CancelMode.IMMEDIATE) {
                    return delegate.cancel(ids, mode);
                }
                Set<Long> unreported = new LinkedHashSet<>();
                for (long id : ids) {
                    if (peerOf.containsKey(id) && !reported.contains(id)) {
                        unreported.add(id);
                    }
                }
                return unreported.stream().mapToLong(Long::longValue).toArray();
            }
        };
    }

    static UnaryOperator<DataTransport> cancelSkipsOwedReports() {
        return t -> new RewritingTransport(t) {
            final Set<Long> owed = ConcurrentHashMap.newKeySet();

            @Override
            public boolean removePeer(String peerId) {
                peerOf.forEach((id, p) -> {
                    if (p.equals(peerId) && !reported.contains(id)) {
                        owed.add(id);
                    }
                });
                return delegate.removePeer(peerId);
            }

            @Override
            public long[] cancel(long[] ids, CancelMode mode) {
                return delegate.cancel(Arrays.stream(ids).filter(id -> !owed.contains(id)).toArray(), mode);
            }
        };
    }

    // ------------------------------------------------------------------ F

    static UnaryOperator<DataTransport> delaysFailureReports() {
        long delay = 3 * Long.getLong("blockxfer.tck.deadlineMillis", 1_500) * 1_000_000L;
        return t -> new RewritingTransport(t) {
            final Map<Long, Long> heldSince = new ConcurrentHashMap<>();
            final Map<Long, String> heldPeer = new ConcurrentHashMap<>();

            @Override
            synchronized List<Report> rewrite(String peer, List<Report> reports) {
                long now = System.nanoTime();
                List<Report> out = new ArrayList<>();
                for (Report x : reports) {
                    if (x.done()) {
                        out.add(x);
                    } else {
                        heldSince.put(x.id(), now);
                        heldPeer.put(x.id(), peer == null ? "" : peer);
                    }
                }
                heldSince.forEach((id, since) -> {
                    if (now - since > delay && (peer == null || peer.equals(heldPeer.get(id)))) {
                        out.add(new Report(id, false));
                        heldSince.remove(id);
                    }
                });
                return out;
            }
        };
    }

    // ------------------------------------------------------------------ M (made again in a child JVM)

    /** Swallows the rejection of garbled metadata: addPeer returns as if it had worked. */
    public static final class AcceptsGarbledMetadata implements UnaryOperator<DataTransport> {
        /** For the child JVM of the descriptor rules. */
        public AcceptsGarbledMetadata() {
        }

        @Override
        public DataTransport apply(DataTransport t) {
            return new ForwardingTransport(t) {
                @Override
                public void addPeer(String peerId, PeerDescriptor peer) {
                    try {
                        delegate.addPeer(peerId, peer);
                    } catch (MalformedPeerDescriptorException ignored) {
                        // "tolerant" parsing
                    }
                }
            };
        }
    }

    /** Dies (as a native crash would) on metadata it cannot parse. */
    public static final class CrashesOnGarbledMetadata implements UnaryOperator<DataTransport> {
        /** For the child JVM of the descriptor rules. */
        public CrashesOnGarbledMetadata() {
        }

        @Override
        public DataTransport apply(DataTransport t) {
            return new ForwardingTransport(t) {
                @Override
                public void addPeer(String peerId, PeerDescriptor peer) {
                    try {
                        delegate.addPeer(peerId, peer);
                    } catch (MalformedPeerDescriptorException e) {
                        Runtime.getRuntime().halt(134);
                    }
                }
            };
        }
    }

    /** Rejects garbled metadata with an exception that is not a TransportException. */
    public static final class UntypedRejection implements UnaryOperator<DataTransport> {
        /** For the child JVM of the descriptor rules. */
        public UntypedRejection() {
        }

        @Override
        public DataTransport apply(DataTransport t) {
            return new ForwardingTransport(t) {
                @Override
                public void addPeer(String peerId, PeerDescriptor peer) {
                    try {
                        delegate.addPeer(peerId, peer);
                    } catch (TransportException e) {
                        throw new IllegalStateException("cannot add " + peerId, e);
                    }
                }
            };
        }
    }

    /** Retries a descriptor whose base is one block off with the base moved back, and keeps it. */
    public static final class ToleratesAShiftedBase implements UnaryOperator<DataTransport> {
        /** For the child JVM of the descriptor rules. */
        public ToleratesAShiftedBase() {
        }

        @Override
        public DataTransport apply(DataTransport t) {
            return new ForwardingTransport(t) {
                @Override
                public void addPeer(String peerId, PeerDescriptor d) {
                    try {
                        delegate.addPeer(peerId, d);
                    } catch (IncompatiblePeerException e) {
                        for (long shift : new long[] {-d.blockLength(), d.blockLength()}) {
                            try {
                                delegate.addPeer(peerId, Fixture.with(d, d.backend(), d.fingerprint(),
                                        d.baseAddress() + shift, d.numBlocks(), d.blockLength(), d.metadata()));
                                return;
                            } catch (TransportException | IllegalArgumentException retry) {
                                // try the other way
                            }
                        }
                        throw e;
                    }
                }
            };
        }
    }

    /** Rejects tampered descriptors, but with the error its engine would give for their metadata. */
    public static final class ReportsTamperingAsMalformed implements UnaryOperator<DataTransport> {
        /** For the child JVM of the descriptor rules. */
        public ReportsTamperingAsMalformed() {
        }

        @Override
        public DataTransport apply(DataTransport t) {
            return new ForwardingTransport(t) {
                @Override
                public void addPeer(String peerId, PeerDescriptor peer) {
                    try {
                        delegate.addPeer(peerId, peer);
                    } catch (UnauthenticatedPeerException e) {
                        throw new MalformedPeerDescriptorException("metadata of peer '" + peerId + "' is unusable");
                    }
                }
            };
        }
    }

    /** A provider whose transports drop the deployment key ring they were configured with. */
    public static final class IgnoresTheKeyRing extends ForwardingProvider<io.blockxfer.loopback.LoopbackProvider> {
        /** For the child JVM of the descriptor rules. */
        public IgnoresTheKeyRing() {
            super(new io.blockxfer.loopback.LoopbackProvider());
        }

        @Override
        public DataTransport open(io.blockxfer.transport.TransportConfig config) {
            return delegate.open(config.toBuilder().keyRing(null).build());
        }
    }

    // ------------------------------------------------------------------ L

    static UnaryOperator<DataTransport> closeNotIdempotent() {
        return t -> new ForwardingTransport(t) {
            final AtomicBoolean closed = new AtomicBoolean();

            @Override
            public void close() {
                if (!closed.compareAndSet(false, true)) {
                    throw new IllegalStateException("already closed");
                }
                delegate.close();
            }
        };
    }

    static UnaryOperator<DataTransport> concurrentCloseReturnsEarly() {
        return t -> new ForwardingTransport(t) {
            final AtomicBoolean closing = new AtomicBoolean();

            @Override
            public void close() {
                if (closing.compareAndSet(false, true)) {
                    delegate.close();
                }
            }
        };
    }

    static UnaryOperator<DataTransport> answersPollsAfterClose() {
        return t -> new ForwardingTransport(t) {
            volatile boolean closed;

            @Override
            public PollResult poll(String peerId) {
                return closed ? PollResult.EMPTY : delegate.poll(peerId);
            }

            @Override
            public void close() {
                closed = true;
                delegate.close();
            }
        };
    }

    static UnaryOperator<DataTransport> closeDoesNotWait() {
        return t -> new ForwardingTransport(t) {
            @Override
            public void close() {
                Thread.ofPlatform().daemon().start(delegate::close);
            }
        };
    }

    static UnaryOperator<DataTransport> closeForgetsCancelledTransfers() {
        return t -> new ForwardingTransport(t) {
            volatile boolean cancelledImmediately;

            @Override
            public long[] cancel(long[] ids, CancelMode mode) {
                cancelledImmediately |= mode == CancelMode.IMMEDIATE && ids != null && ids.length > 0;
                return delegate.cancel(ids, mode);
            }

            @Override
            public void close() {
                if (cancelledImmediately) {
                    Thread.ofPlatform().daemon().start(delegate::close); // nothing left to wait for, it thinks
                } else {
                    delegate.close();
                }
            }
        };
    }

    // ------------------------------------------------------------------ S

    static UnaryOperator<DataTransport> sharedPeerFieldWithoutLock() {
        return t -> new ForwardingTransport(t) {
            String current;

            @Override
            public long writeBlocks(String peerId, int[] l, int[] r) {
                current = peerId;
                LockSupport.parkNanos(1_000_000);
                return delegate.writeBlocks(current, l, r);
            }
        };
    }

    static UnaryOperator<DataTransport> misroutesHandlerReports() {
        return t -> new ForwardingTransport(t) {
            @Override
            public int poll(String peerId, CompletionHandler h) {
                return delegate.pollAll(h);
            }
        };
    }

    static UnaryOperator<DataTransport> racingCallsSeeReleasedState() {
        return t -> new ForwardingTransport(t) {
            volatile boolean closing;

            @Override
            public long writeBlocks(String peerId, int[] l, int[] r) {
                try {
                    return delegate.writeBlocks(peerId, l, r);
                } catch (IllegalStateException e) {
                    if (closing) {
                        throw new NullPointerException("the in-flight table was released by a racing close");
                    }
                    throw e;
                }
            }

            @Override
            public void close() {
                closing = true;
                delegate.close();
            }
        };
    }
}
