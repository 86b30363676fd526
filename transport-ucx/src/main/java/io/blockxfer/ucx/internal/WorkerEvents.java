package io.blockxfer.ucx.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.openucx.jucx.UcxException;
import org.openucx.jucx.ucp.UcpWorker;

/**
 * Sleeping on a UCP worker's event file descriptor (the context has UCX's wakeup feature), and
 * waking a thread that sleeps there. UCX's rule: progress until there is nothing left, then
 * {@link #arm}; only an armed worker's descriptor becomes readable for new events, and arm refuses
 * ({@code UCS_ERR_BUSY}) while events are unprocessed or a {@link #signal} is pending, so a signal
 * sent before the sleep is not lost. Then {@link #await} blocks in {@code poll(2)} on the
 * descriptor, which a new event of the worker (a completion, a peer's message, UCX's keepalive
 * timer, an endpoint's failure) or a {@link #signal} makes readable.
 *
 * <p>{@code poll(2)} is called here rather than JUCX's {@code waitForEvents()}, whose wait has no
 * limit: every wait is bounded by {@link #WAIT_BOUND_MILLIS}.
 *
 * <p><b>Thread safety:</b> {@link #arm} by the owner of the worker; {@link #await} by the one thread
 * that sleeps (the descriptor's {@code pollfd} is its own), which may have let go of the worker
 * meanwhile ({@code poll(2)} touches only the descriptor, and another thread's {@code progress()}
 * at most makes it readable); {@link #signal} and {@link #closing} from any thread, under a lock,
 * so that no signal reaches a destroyed worker.
 */
final class WorkerEvents {

    /**
     * The longest one sleep lasts. A safety net, not a timer anything relies on: every transport
     * this backend selects wakes the descriptor (tcp, shared memory and cma register event sources
     * with the worker), but UCX's own transports without events ({@code self}, and {@code ud} and
     * {@code cuda_copy} in some releases) never do, and UCX and NIXL record cases where a sleeper
     * on the descriptor missed an event (NIXL's progress thread keeps a periodic {@code poll()}
     * timeout for "transports that still require periodic polling"). A missed wake-up then costs
     * at most this long instead of a hang; a wake-up every 10 ms costs an idle transport about a
     * hundred short rounds per second.
     */
    static final int WAIT_BOUND_MILLIS = 10;

    private final UcpWorker worker;
    private final int fd;
    private final MemorySegment pollfd = Arena.ofAuto().allocate(UcxLibrary.POLLFD_BYTES, 4);
    private final Object signalLock = new Object();
    private boolean closed; // guarded by signalLock

    WorkerEvents(UcpWorker worker) {
        this.worker = worker;
        this.fd = worker.getEventFD();
    }

    /**
     * Arms the worker's descriptor: true when armed (the caller may sleep), false when the worker
     * has events to progress first (or a signal is pending).
     *
     * @throws UcxException for any other refusal
     */
    boolean arm() {
        try {
            worker.arm();
            return true;
        } catch (UcxException e) {
            if (e.getStatus() == UcsStatus.BUSY) {
                return false;
            }
            throw e;
        }
    }

    /**
     * Sleeps until the armed descriptor is readable, or {@code millis} (at most
     * {@link #WAIT_BOUND_MILLIS}) passed.
     */
    void await(int millis) {
        UcxLibrary.pollReadable(pollfd, fd, Math.min(millis, WAIT_BOUND_MILLIS));
    }

    /** Wakes the thread that sleeps in {@link #await}, or makes its next {@link #arm} refuse. */
    void signal() {
        synchronized (signalLock) {
            if (!closed) {
                worker.signal();
            }
        }
    }

    /** The worker is about to be destroyed: {@link #signal} does nothing from now on. */
    void closing() {
        synchronized (signalLock) {
            closed = true;
        }
    }
}
