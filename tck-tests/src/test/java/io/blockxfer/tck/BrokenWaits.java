package io.blockxfer.tck;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.blockxfer.transport.CompletionHandler;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.TransferFuture;
import io.blockxfer.transport.spi.CompletionSignal;
import io.blockxfer.transport.spi.TransferEngine;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.UnaryOperator;

/**
 * The broken waits and futures of the kit's own tests (rules A1 to A10): decorators of a working
 * loopback initiator or engine, each with one defect real implementations make.
 */
final class BrokenWaits {

    private BrokenWaits() {
    }

    /** A1: the engine says it fires the completion signal, and never does. */
    static UnaryOperator<TransferEngine> signalNeverFired() {
        return e -> new ForwardingEngine(e) {
            @Override
            public boolean bindCompletionSignal(CompletionSignal signal) {
                delegate.bindCompletionSignal(() -> { });
                return true;
            }
        };
    }

    /** A2: every wait is a plain poll. */
    static UnaryOperator<DataTransport> waitReturnsAtOnce() {
        return t -> new ForwardingTransport(t) {
            @Override
            public PollResult poll(String peerId, long timeout, TimeUnit unit) throws InterruptedException {
                return delegate.poll(peerId, 0, unit);
            }

            @Override
            public int poll(String peerId, CompletionHandler h, long timeout, TimeUnit unit)
                    throws InterruptedException {
                return delegate.poll(peerId, h, 0, unit);
            }

            @Override
            public PollResult pollAll(long timeout, TimeUnit unit) throws InterruptedException {
                return delegate.pollAll(0, unit);
            }

            @Override
            public int pollAll(CompletionHandler h, long timeout, TimeUnit unit) throws InterruptedException {
                return delegate.pollAll(h, 0, unit);
            }
        };
    }

    /** A3: a wait polls first and checks the interrupt after, dropping what it took. */
    static UnaryOperator<DataTransport> interruptedWaitDropsReports() {
        return t -> new ForwardingTransport(t) {
            @Override
            public PollResult poll(String peerId, long timeout, TimeUnit unit) throws InterruptedException {
                PollResult first = delegate.poll(peerId);
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted (what the poll took is lost)");
                }
                return first.isEmpty() ? delegate.poll(peerId, timeout, unit) : first;
            }
        };
    }

    /** A4: a wait that close ends returns the empty result at its limit instead of throwing. */
    static UnaryOperator<DataTransport> closeLeavesWaitersParked() {
        return t -> new ForwardingTransport(t) {
            @Override
            public PollResult pollAll(long timeout, TimeUnit unit) throws InterruptedException {
                long end = System.nanoTime() + unit.toNanos(timeout);
                try {
                    return delegate.pollAll(timeout, unit);
                } catch (IllegalStateException closed) {
                    LockSupport.parkNanos(end - System.nanoTime());
                    return PollResult.EMPTY;
                }
            }
        };
    }

    /** A5: an asynchronous WRITE is a plain one whose future is completed at once. */
    static UnaryOperator<DataTransport> asyncCompletesAtSubmit() {
        return t -> new ForwardingTransport(t) {
            @Override
            public TransferFuture writeBlocksAsync(String peerId, int[] l, int[] r) {
                long id = delegate.writeBlocks(peerId, l, r);
                if (id == NOT_SUBMITTED) {
                    return TransferFuture.notSubmitted(peerId);
                }
                TransferFuture f = new TransferFuture(id, peerId, x -> { });
                f.complete(null);
                return f;
            }
        };
    }

    /** A6: cancelling a future cancels only the future; its transfer goes on being tracked. */
    static UnaryOperator<DataTransport> futureCancelLeavesTheTransfer() {
        return t -> new ForwardingTransport(t) {
            @Override
            public TransferFuture writeBlocksAsync(String peerId, int[] l, int[] r) {
                TransferFuture real = delegate.writeBlocksAsync(peerId, l, r);
                TransferFuture mirror = new TransferFuture(real.transferId(), real.peerId(), x -> { });
                var unused = real.whenComplete((v, e) -> {
                    if (e == null) {
                        mirror.complete(null);
                    } else {
                        mirror.completeExceptionally(e);
                    }
                });
                return mirror;
            }
        };
    }

    /**
     * A2: a wait on a peer is a wait on every peer (one completion queue for all, as a backend
     * might keep), so it reports, and is ended by, another peer's transfer. A wait on an unknown
     * peer still returns at once.
     */
    static UnaryOperator<DataTransport> waitOnAPeerReportsAnyPeer() {
        return t -> new ForwardingTransport(t) {
            @Override
            public PollResult poll(String peerId, long timeout, TimeUnit unit) throws InterruptedException {
                return delegate.traffic(peerId).isEmpty() ? delegate.poll(peerId, timeout, unit)
                        : delegate.pollAll(timeout, unit);
            }

            @Override
            public int poll(String peerId, CompletionHandler h, long timeout, TimeUnit unit)
                    throws InterruptedException {
                return delegate.traffic(peerId).isEmpty() ? delegate.poll(peerId, h, timeout, unit)
                        : delegate.pollAll(h, timeout, unit);
            }
        };
    }

    /**
     * A6: a transfer's future completes normally when the transfer fails once it has started (its
     * failure comes later than a failed submit's would), as if only submit errors counted.
     */
    static UnaryOperator<DataTransport> overdueTransferCompletesItsFuture() {
        return t -> new ForwardingTransport(t) {
            @Override
            public TransferFuture writeBlocksAsync(String peerId, int[] l, int[] r) {
                long submitted = System.nanoTime();
                TransferFuture real = delegate.writeBlocksAsync(peerId, l, r);
                TransferFuture mirror = new TransferFuture(real.transferId(), real.peerId(), id -> real.cancel(false),
                        (f, nanos) -> {
                            try {
                                real.get(nanos, TimeUnit.NANOSECONDS);
                            } catch (ExecutionException | TimeoutException | CancellationException e) {
                                // the mirror follows the real future below
                            }
                        });
                var unused = real.whenComplete((v, e) -> {
                    boolean late = System.nanoTime() - submitted > TimeUnit.MILLISECONDS.toNanos(300);
                    if (e == null || late) {
                        mirror.complete(null);
                    } else {
                        mirror.completeExceptionally(e);
                    }
                });
                return mirror;
            }
        };
    }

    /** A7: a wait parks inside a native upcall (as one completed from a backend's callback would), pinning its carrier. */
    static UnaryOperator<DataTransport> waitsPinTheCarrier() {
        return t -> new ForwardingTransport(t) {
            @Override
            public int poll(String peerId, CompletionHandler h, long timeout, TimeUnit unit)
                    throws InterruptedException {
                int[] n = new int[1];
                InsideUpcall.run(() -> n[0] = delegate.poll(peerId, h, timeout, unit));
                return n[0];
            }
        };
    }

    /** A8: the handler forms of the waits drop every 50th report. */
    static UnaryOperator<DataTransport> waitDropsAReportNowAndThen() {
        return t -> new ForwardingTransport(t) {
            final AtomicInteger reports = new AtomicInteger();

            private CompletionHandler dropping(CompletionHandler h) {
                return (id, ok) -> {
                    if (reports.incrementAndGet() % 50 != 0) {
                        h.onTerminal(id, ok);
                    }
                };
            }

            @Override
            public int poll(String peerId, CompletionHandler h, long timeout, TimeUnit unit)
                    throws InterruptedException {
                return delegate.poll(peerId, dropping(h), timeout, unit);
            }

            @Override
            public int pollAll(CompletionHandler h, long timeout, TimeUnit unit) throws InterruptedException {
                return delegate.pollAll(dropping(h), timeout, unit);
            }
        };
    }

    /** A9: a thread blocked on a future sleeps in slices of twice the wake bound, deaf to the future's completion. */
    static UnaryOperator<DataTransport> joinSleepsThroughTheWakeUp() {
        long sliceMillis = TckEnvironment.fromSystem().wake().toMillis() * 2;
        return mirroringFutures(real -> (f, nanos) -> {
            long end = System.nanoTime() + nanos;
            while (!f.isDone() && System.nanoTime() - end < 0) {
                Thread.sleep(sliceMillis);
            }
        });
    }

    /** A10: a get with a limit waits for the transfer up to twice the wake bound, whatever its limit. */
    static UnaryOperator<DataTransport> timedGetIgnoresItsLimit() {
        long waitMillis = TckEnvironment.fromSystem().wake().toMillis() * 2;
        return mirroringFutures(real -> (f, nanos) -> {
            try {
                real.get(waitMillis, TimeUnit.MILLISECONDS);
            } catch (ExecutionException | CancellationException | TimeoutException e) {
                // the future reports it
            }
        });
    }

    /** A7: a thread blocked on a future waits inside a native upcall, pinning its carrier. */
    static UnaryOperator<DataTransport> joinsPinTheCarrier() {
        return mirroringFutures(real -> (f, nanos) -> InsideUpcall.run(() -> {
            LockSupport.parkNanos(1_000_000);
            try {
                real.get(nanos, TimeUnit.NANOSECONDS);
            } catch (ExecutionException | CancellationException | TimeoutException e) {
                // the future reports it
            }
        }));
    }

    /**
     * An initiator whose asynchronous WRITEs return a future of their own, completed when the real
     * one is, whose blocked threads go through the driver made for the real future.
     */
    private static UnaryOperator<DataTransport> mirroringFutures(
            java.util.function.Function<TransferFuture, TransferFuture.Driver> driver) {
        return t -> new ForwardingTransport(t) {
            @Override
            public TransferFuture writeBlocksAsync(String peerId, int[] l, int[] r) {
                TransferFuture real = delegate.writeBlocksAsync(peerId, l, r);
                TransferFuture mirror = new TransferFuture(real.transferId(), real.peerId(), id -> real.cancel(false),
                        driver.apply(real));
                var unused = real.whenComplete((v, e) -> {
                    if (e == null) {
                        mirror.complete(null);
                    } else {
                        mirror.completeExceptionally(e);
                    }
                });
                return mirror;
            }
        };
    }

    /**
     * Runs Java code inside an upcall from native code: libc's {@code qsort} of two ints, whose
     * comparator runs the body once. A thread that blocks in the body blocks with a native frame
     * below it.
     */
    // linking qsort and making the comparator's stub are restricted methods: this test-only defect
    // needs native code, which the kit's test run enables (--enable-native-access)
    @SuppressWarnings("restricted")
    static final class InsideUpcall {

        /** What runs inside the upcall. */
        @FunctionalInterface
        interface Body {
            void run() throws Exception;
        }

        private static final Linker LINKER = Linker.nativeLinker();
        private static final MethodHandle QSORT = LINKER.downcallHandle(
                LINKER.defaultLookup().find("qsort").orElseThrow(),
                FunctionDescriptor.ofVoid(ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS));
        private static final FunctionDescriptor COMPARE = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS);
        private static final MethodHandle COMPARE_TARGET;

        static {
            try {
                COMPARE_TARGET = MethodHandles.lookup().findStatic(InsideUpcall.class, "compare",
                        MethodType.methodType(int.class, Holder.class, MemorySegment.class, MemorySegment.class));
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        /** The body of one call and what it threw. */
        private static final class Holder {
            final Body body;
            boolean ran;
            Throwable failure;

            Holder(Body body) {
                this.body = body;
            }
        }

        private InsideUpcall() {
        }

        // an upcall must never throw (the JVM would end): the body's failure is kept and rethrown below.
        // Reached through COMPARE_TARGET, a method handle; the elements it compares do not matter.
        @SuppressWarnings("unused")
        private static int compare(Holder holder, MemorySegment a, MemorySegment b) {
            if (!holder.ran) {
                holder.ran = true;
                try {
                    holder.body.run();
                } catch (Throwable e) {
                    holder.failure = e;
                }
            }
            return 0;
        }

        static void run(Body body) throws InterruptedException {
            Holder holder = new Holder(body);
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment ints = arena.allocate(JAVA_INT, 2);
                MemorySegment stub = LINKER.upcallStub(COMPARE_TARGET.bindTo(holder), COMPARE, arena);
                QSORT.invokeExact(ints, 2L, (long) Integer.BYTES, stub);
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable e) {
                throw new IllegalStateException("qsort failed", e);
            }
            Throwable failure = holder.failure;
            if (failure instanceof InterruptedException ie) {
                throw ie;
            }
            if (failure instanceof RuntimeException re) {
                throw re;
            }
            if (failure instanceof Error err) {
                throw err;
            }
            if (failure != null) {
                throw new IllegalStateException(failure);
            }
        }
    }
}
