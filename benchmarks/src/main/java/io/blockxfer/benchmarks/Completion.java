package io.blockxfer.benchmarks;

import io.blockxfer.transport.CompletionHandler;
import io.blockxfer.transport.DataTransport;
import java.util.concurrent.TimeUnit;

/**
 * Waits for one transfer by polling its peer with the allocation-free handler form; a failed
 * transfer throws, so a broken backend cannot post a fast score. A spinning waiter measures the
 * lowest latency; a yielding one leaves the core to the backend's threads during long transfers.
 *
 * <p><b>Thread safety:</b> not thread-safe; one per benchmark thread.
 */
final class Completion implements CompletionHandler {

    private long awaited;
    private boolean reported;
    private boolean success;

    /**
     * Polls {@code poll(peer, this)} until {@code id} is reported, spinning, or yielding after 64
     * empty polls in a row when {@code yieldWhenIdle}.
     */
    // the yield is the caller style a benchmark asked to measure; nothing depends on the scheduler honouring it
    @SuppressWarnings("ThreadPriorityCheck")
    void await(DataTransport transport, String peer, long id, boolean yieldWhenIdle) {
        awaited = id;
        reported = false;
        int empty = 0;
        while (!reported) {
            if (transport.poll(peer, this) == 0) {
                if (yieldWhenIdle && ++empty > 64) {
                    Thread.yield();
                } else {
                    Thread.onSpinWait();
                }
            }
        }
        if (!success) {
            throw new IllegalStateException(transport.backendName() + ": transfer " + id + " failed");
        }
    }

    /**
     * Waits with {@code poll(peer, this, limit)} until {@code id} is reported: the caller blocks in
     * the transport (a short spin, then a park until the backend signals) instead of polling.
     */
    void awaitBlocking(DataTransport transport, String peer, long id) {
        awaited = id;
        reported = false;
        try {
            while (!reported) {
                transport.poll(peer, this, 10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for transfer " + id, e);
        }
        if (!success) {
            throw new IllegalStateException(transport.backendName() + ": transfer " + id + " failed");
        }
    }

    @Override
    public void onTerminal(long transferId, boolean ok) {
        if (transferId == awaited) {
            reported = true;
            success = ok;
        }
    }
}
