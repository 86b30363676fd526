package io.blockxfer.tck;

import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.TransferOp;
import io.blockxfer.transport.spi.CompletionSignal;
import io.blockxfer.transport.spi.TransferEngine;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

/**
 * Broken {@link TransferEngine}s under the managed transport: decorators of the working loopback
 * engine, each with one defect real engine authors make. The kit's own tests run each against the
 * rule that must catch it.
 */
final class BrokenEngines {

    private BrokenEngines() {
    }

    /** A handle the broken engine answers for itself, without the real engine. */
    private record Fake(int status) {
    }

    /** A handle whose submit the broken engine puts off until the first status check. */
    private static final class Deferred {
        final long id;
        final Object peer;
        final TransferOp op;
        final int[] local;
        final int[] remote;
        Object inner;
        boolean failed;

        Deferred(long id, Object peer, TransferOp op, int[] local, int[] remote) {
            this.id = id;
            this.peer = peer;
            this.op = op;
            this.local = local;
            this.remote = remote;
        }
    }

    /** A base whose fake handles never reach the real engine. */
    private static class WithFakes extends ForwardingEngine {
        WithFakes(TransferEngine delegate) {
            super(delegate);
        }

        @Override
        public int status(Object transfer) {
            return transfer instanceof Fake f ? f.status() : delegate.status(transfer);
        }

        @Override
        public void release(Object transfer) {
            if (!(transfer instanceof Fake)) {
                delegate.release(transfer);
            }
        }
    }

    private static int[] reversed(int[] a) {
        int[] r = new int[a.length];
        for (int i = 0; i < a.length; i++) {
            r[i] = a[a.length - 1 - i];
        }
        return r;
    }

    static UnaryOperator<TransferEngine> pairsReversed() {
        return e -> new ForwardingEngine(e) {
            @Override
            public Object submit(long id, Object peer, TransferOp op, int[] l, int[] r) {
                return delegate.submit(id, peer, op, l, reversed(r));
            }
        };
    }

    static UnaryOperator<TransferEngine> coalescesRunsContiguousOnOneSide() {
        return e -> new ForwardingEngine(e) {
            @Override
            public Object submit(long id, Object peer, TransferOp op, int[] l, int[] r) {
                boolean localRun = true;
                for (int i = 1; i < l.length; i++) {
                    localRun &= l[i] == l[0] + i;
                }
                if (!localRun) {
                    return delegate.submit(id, peer, op, l, r);
                }
                int[] run = new int[r.length];
                for (int i = 0; i < r.length; i++) {
                    run[i] = r[0] + i;
                }
                return delegate.submit(id, peer, op, l, run);
            }
        };
    }

    static UnaryOperator<TransferEngine> dropsEvery50thWrite() {
        return e -> new WithFakes(e) {
            final AtomicInteger count = new AtomicInteger();

            @Override
            public Object submit(long id, Object peer, TransferOp op, int[] l, int[] r) {
                if (count.incrementAndGet() % 50 == 0) {
                    return new Fake(TransferEngine.DONE);
                }
                return delegate.submit(id, peer, op, l, r);
            }
        };
    }

    static UnaryOperator<TransferEngine> doneAtSubmit() {
        return e -> new ForwardingEngine(e) {
            @Override
            public int status(Object transfer) {
                delegate.status(transfer);
                return TransferEngine.DONE;
            }
        };
    }

    /** A handle whose native post happens on another thread, after its status already said DONE. */
    private static final class Late {
        volatile Object inner;
    }

    static UnaryOperator<TransferEngine> doneBeforeTheCopyFinishes() {
        return e -> new ForwardingEngine(e) {
            @Override
            public Object submit(long id, Object peer, TransferOp op, int[] l, int[] r) {
                Late late = new Late();
                int[] local = l.clone();
                int[] remote = r.clone();
                Thread.ofPlatform().daemon().start(() -> {
                    java.util.concurrent.locks.LockSupport.parkNanos(200_000_000L);
                    try {
                        late.inner = delegate.submit(id, peer, op, local, remote);
                    } catch (RuntimeException closedMeanwhile) {
                        // the rule is over
                    }
                });
                return late;
            }

            @Override
            public int status(Object transfer) {
                return TransferEngine.DONE; // "the post was accepted"
            }

            @Override
            public void release(Object transfer) {
                // the copy job is left to finish by itself
            }
        };
    }

    static UnaryOperator<TransferEngine> pooledIndicesNotCleared() {
        return e -> new ForwardingEngine(e) {
            int[] lastLocal = new int[0];
            int[] lastRemote = new int[0];

            @Override
            public synchronized Object submit(long id, Object peer, TransferOp op, int[] l, int[] r) {
                int[] local = l;
                int[] remote = r;
                if (l.length < lastLocal.length) {
                    local = Arrays.copyOf(lastLocal, lastLocal.length);
                    remote = Arrays.copyOf(lastRemote, lastRemote.length);
                    System.arraycopy(l, 0, local, 0, l.length);
                    System.arraycopy(r, 0, remote, 0, r.length);
                }
                lastLocal = local.clone();
                lastRemote = remote.clone();
                return delegate.submit(id, peer, op, local, remote);
            }
        };
    }

    static UnaryOperator<TransferEngine> writesToTheLastConnectedPeer() {
        return e -> new ForwardingEngine(e) {
            volatile Object last;

            @Override
            public Object connect(String peerId, PeerDescriptor peer) {
                Object p = delegate.connect(peerId, peer);
                last = p;
                return p;
            }

            @Override
            public Object submit(long id, Object peer, TransferOp op, int[] l, int[] r) {
                return delegate.submit(id, last, op, l, r);
            }
        };
    }

    static UnaryOperator<TransferEngine> keepsTheCallersIndexArrays() {
        return e -> new ForwardingEngine(e) {
            @Override
            public Object submit(long id, Object peer, TransferOp op, int[] l, int[] r) {
                return new Deferred(id, peer, op, l, r); // posted at the first status check, with the arrays then
            }

            @Override
            public int status(Object transfer) {
                Deferred d = (Deferred) transfer;
                if (d.failed) {
                    return TransferEngine.FAILED;
                }
                if (d.inner == null) {
                    try {
                        d.inner = delegate.submit(d.id, d.peer, d.op, d.local, d.remote);
                    } catch (RuntimeException ex) {
                        d.failed = true;
                        return TransferEngine.FAILED;
                    }
                    return TransferEngine.PENDING;
                }
                return delegate.status(d.inner);
            }

            @Override
            public void release(Object transfer) {
                Deferred d = (Deferred) transfer;
                if (d.inner != null) {
                    delegate.release(d.inner);
                }
            }
        };
    }

    static UnaryOperator<TransferEngine> readPerformsAWrite() {
        return e -> new ForwardingEngine(e) {
            @Override
            public Object submit(long id, Object peer, TransferOp op, int[] l, int[] r) {
                return delegate.submit(id, peer, TransferOp.WRITE, l, r);
            }
        };
    }

    static UnaryOperator<TransferEngine> readPairsShifted() {
        return e -> new ForwardingEngine(e) {
            @Override
            public Object submit(long id, Object peer, TransferOp op, int[] l, int[] r) {
                if (op != TransferOp.READ || r.length < 2) {
                    return delegate.submit(id, peer, op, l, r);
                }
                int[] shifted = new int[r.length];
                for (int i = 0; i < r.length; i++) {
                    shifted[i] = r[(i + 1) % r.length];
                }
                return delegate.submit(id, peer, op, l, shifted);
            }
        };
    }

    static UnaryOperator<TransferEngine> readServedFromCache() {
        return e -> new WithFakes(e) {
            final Map<Object, Set<Integer>> read = new ConcurrentHashMap<>();

            @Override
            public Object submit(long id, Object peer, TransferOp op, int[] l, int[] r) {
                if (op == TransferOp.READ) {
                    Set<Integer> cached = read.computeIfAbsent(peer, k -> ConcurrentHashMap.newKeySet());
                    if (Arrays.stream(r).allMatch(cached::contains)) {
                        return new Fake(TransferEngine.DONE); // "already have those bytes"
                    }
                    Arrays.stream(r).forEach(cached::add);
                }
                return delegate.submit(id, peer, op, l, r);
            }
        };
    }

    static UnaryOperator<TransferEngine> swallowsSubmitErrors() {
        return e -> new WithFakes(e) {
            @Override
            public Object submit(long id, Object peer, TransferOp op, int[] l, int[] r) {
                try {
                    return delegate.submit(id, peer, op, l, r);
                } catch (RuntimeException ex) {
                    return new Fake(TransferEngine.PENDING); // the error is lost; the transfer never ends
                }
            }
        };
    }

    /**
     * A backend whose polls do nothing in the polling-thread mode: its transfers end only when its
     * fallback thread looks in, 100 ms after their submit (as a thread that wakes every 100 ms
     * would find them).
     */
    static UnaryOperator<TransferEngine> pollsDoNotDrive() {
        long fallbackNanos = 100_000_000L;
        return e -> new ForwardingEngine(e) {
            final Map<Object, Long> submittedAt = new ConcurrentHashMap<>();

            @Override
            public Object submit(long id, Object peer, TransferOp op, int[] l, int[] r) {
                Object h = delegate.submit(id, peer, op, l, r);
                submittedAt.put(h, System.nanoTime());
                return h;
            }

            @Override
            public int status(Object transfer) {
                Long at = submittedAt.get(transfer);
                if (at != null && System.nanoTime() - at < fallbackNanos) {
                    return TransferEngine.PENDING; // the fallback thread has not looked in yet
                }
                int status = delegate.status(transfer);
                if (status != TransferEngine.PENDING) {
                    submittedAt.remove(transfer);
                }
                return status;
            }

            @Override
            public int progress() {
                return 0; // the defect: a poll never drives the backend
            }

            @Override
            public boolean bindCompletionSignal(CompletionSignal signal) {
                // what ends a transfer here is a status check, not the copy: waiters are woken by
                // the transport's status thread, as for any backend without a completion signal
                return false;
            }
        };
    }

    /**
     * A backend whose polls do nothing while its own thread does every copy at once: loopback's
     * copy worker, which looks every 200 us in the polling-thread mode, well within T1's bound, so
     * only the count of the polls' work catches it.
     */
    static UnaryOperator<TransferEngine> pollsDoNoWorkBesideAFastFallback() {
        return e -> new ForwardingEngine(e) {
            @Override
            public int progress() {
                return 0; // the defect: the poll never drives the backend; the fallback is fast enough to hide it
            }
        };
    }

    /**
     * A backend whose internal queue holds 4,096 transfers and fails a submit that finds it full,
     * instead of making the submitter wait for room.
     */
    static UnaryOperator<TransferEngine> failsSubmitsWhenItsQueueIsFull() {
        int capacity = 4_096;
        return e -> new ForwardingEngine(e) {
            final Set<Object> queued = ConcurrentHashMap.newKeySet();

            @Override
            public Object submit(long id, Object peer, TransferOp op, int[] l, int[] r) {
                if (queued.size() >= capacity) {
                    throw new IllegalStateException("queue full (" + capacity + " transfers)");
                }
                Object h = delegate.submit(id, peer, op, l, r);
                queued.add(h);
                return h;
            }

            @Override
            public void release(Object transfer) {
                queued.remove(transfer);
                delegate.release(transfer);
            }
        };
    }

    static UnaryOperator<TransferEngine> acceptsOneBlockMore() {
        return e -> new ForwardingEngine(e) {
            @Override
            public Object connect(String peerId, PeerDescriptor d) {
                PeerDescriptor lenient = d.numBlocks() > 1 ? Fixture.with(d, d.backend(), d.fingerprint(),
                        d.baseAddress(), d.numBlocks() - 1, d.blockLength(), d.metadata()) : d;
                return delegate.connect(peerId, lenient); // "rounding": the last block is checked by the copy
            }
        };
    }

    static UnaryOperator<TransferEngine> engineCloseSkipped() {
        return e -> new ForwardingEngine(e) {
            @Override
            public void close(boolean leaked) {
                // forgets to stop the worker and free the region
            }
        };
    }
}
