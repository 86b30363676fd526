package io.blockxfer.tck;

import io.blockxfer.transport.spi.TransferEngine;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;

/**
 * Counts the work that one thread's polls do: an engine decorator, put under an initiator through
 * {@code ManagedTransport.withEngineDecorator}, that forwards every call and adds up the calls of
 * {@link TransferEngine#progress()} made on the counted thread and the events they returned. Rule
 * T1 counts so that a backend whose polls do nothing is caught even where its fallback thread is
 * faster than the declared bound.
 *
 * <p><b>Thread safety:</b> thread-safe; the engine it builds is called from any thread, as the
 * engine contract allows.
 */
final class PollWork {

    private final Thread counted;
    private final AtomicLong calls = new AtomicLong();
    private final AtomicLong events = new AtomicLong();
    private volatile boolean attached;

    /** Counts the polls that {@code counted} makes. */
    PollWork(Thread counted) {
        this.counted = Objects.requireNonNull(counted, "counted");
    }

    /** The decorator to give {@code ManagedTransport.withEngineDecorator}. */
    UnaryOperator<TransferEngine> decorator() {
        return engine -> {
            attached = true;
            return new Counting(engine);
        };
    }

    /** Whether an engine passed through {@link #decorator()}: false for a transport not built on {@code ManagedTransport}. */
    boolean attached() {
        return attached;
    }

    /** The counted thread's calls of {@code progress()} so far. */
    long calls() {
        return calls.get();
    }

    /** The events those calls processed, as the engine reported them. */
    long events() {
        return events.get();
    }

    private final class Counting extends ForwardingEngine {
        Counting(TransferEngine engine) {
            super(engine);
        }

        @Override
        public int progress() {
            int n = delegate.progress();
            if (Thread.currentThread() == counted) {
                calls.incrementAndGet();
                events.addAndGet(Math.max(0, n));
            }
            return n;
        }

        @Override
        public String toString() {
            return "poll-work counter around " + delegate;
        }
    }

    @Override
    public String toString() {
        return calls() + " progress calls on " + counted.getName() + ", " + events() + " events"
                + (attached ? "" : " (no engine passed through the counter)");
    }
}
