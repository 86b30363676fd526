package io.blockxfer.ucx.internal;

import java.lang.System.Logger.Level;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;

/**
 * The end of a {@link ProgressLoop}: when its thread leaves the loop, it keeps the worker, rejects
 * queued commands, closes every endpoint (bounded; the listener too, and the endpoints it
 * accepted that failed), and then destroys the worker, but only when
 * no request of this loop is left in UCX and the worker has gone quiet (flushed, and no event for
 * a while: UCX's own replies to peers, such as software-emulated read data and put
 * acknowledgements, are then sent): destroying a worker fails its queued requests, and UCX 1.18
 * fails its internal reply requests through a path that reads an uninitialised datatype and can
 * crash ({@code ucp_request_dt_dereg}). If that does not happen within the shutdown bound the
 * worker is left open, with its memory, and said so; {@link #workerDestroyed} tells the engine.
 *
 * <p><b>Thread safety:</b> {@link #afterLoop} once, on the loop's thread, after its loop ended
 * (it then owns the worker for good); {@link #workerDestroyed} from any thread.
 */
final class LoopShutdown {

    /** The loop's parts log under the loop's name. */
    private static final System.Logger LOG = System.getLogger(ProgressLoop.class.getName());
    /** How long shutdown waits for UCX to end requests and close endpoints. */
    private static final long SHUTDOWN_NANOS = TimeUnit.SECONDS.toNanos(2);
    /** Flushes in a row with no event that make a worker safe to destroy. */
    private static final int QUIET_FLUSHES = 3;
    /** How long a worker must see no event before it is destroyed (see {@link #quiesce}). */
    private static final long QUIET_NANOS = TimeUnit.MILLISECONDS.toNanos(30);
    /** How long shutdown parks between its quiet checks (see {@link #quiesce}). */
    private static final long QUIET_PAUSE_NANOS = 50_000;

    private final String name;
    private final UcpWorker worker;
    private final CommandIntake commands;
    private final WorkerDriver driver;
    private final PeerConnections peers;
    private final PeerListener incoming;
    private final RequestTracker transfers;
    private final EndSignal ends;
    private volatile boolean workerDestroyed;

    /** The end of the loop that drives {@code worker} with these parts. */
    LoopShutdown(String name, UcpWorker worker, CommandIntake commands, WorkerDriver driver, PeerConnections peers,
            PeerListener incoming, RequestTracker transfers, EndSignal ends) {
        this.name = name;
        this.incoming = incoming;
        this.worker = worker;
        this.commands = commands;
        this.driver = driver;
        this.peers = peers;
        this.transfers = transfers;
        this.ends = ends;
    }

    /**
     * The loop's thread left its loop ({@code owned}: holding the worker): takes the worker for
     * good, closes endpoints, destroys the worker when that is safe, and then rejects every
     * command, queued or still to come.
     */
    void afterLoop(boolean owned) {
        try {
            driver.keepForGood(owned);
            closeWorker();
        } finally {
            commands.terminate();
        }
    }

    /** Closes the endpoints, fails what UCX never ended, and destroys the worker if that is safe. */
    private void closeWorker() {
        commands.rejectQueued();
        boolean drained = false;
        try {
            peers.disconnectAll();
            incoming.close();
            long deadline = System.nanoTime() + SHUTDOWN_NANOS;
            while ((peers.closesPending() || incoming.closesPending()) && System.nanoTime() - deadline < 0) {
                worker.progress();
                peers.afterProgress(transfers);
                incoming.afterProgress();
            }
            if (peers.noneClosing() && !incoming.closesPending()) {
                drained = quiesce(deadline);
            }
        } catch (Throwable t) {
            LOG.log(Level.WARNING, name + ": closing endpoints at shutdown failed", t);
        }
        // said before the loops below fail what the closing peers still hold
        String held = drained ? "" : !peers.noneClosing() ? "endpoints still closing: " + peers.describeClosing()
                : incoming.closesPending() ? incoming.acceptedNow() + " endpoints accepted through the listener still"
                        + " closing"
                : "the worker never went quiet: a flush or UCX's own sends to its peers did not finish";
        // nobody progresses the worker any more: what it still holds never moves again
        peers.failInFlight(transfers);
        ends.fireIfEnded();
        if (!drained) {
            LOG.log(Level.WARNING, "{0}: UCX still holds requests of this transport or replies to its peers after"
                    + " {1} ms ({2}); the UCP worker is left open with its memory (destroying it under them could"
                    + " crash this process)", name, TimeUnit.NANOSECONDS.toMillis(SHUTDOWN_NANOS), held);
            return;
        }
        driver.workerClosing();
        try {
            worker.close();
            workerDestroyed = true;
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, name + ": destroying the UCP worker failed: " + e);
        }
    }

    /**
     * Flushes and progresses the worker until it has been quiet for {@link #QUIET_NANOS}: UCX's
     * own sends (replies to peers' software-emulated reads, acknowledgements of their puts) go out
     * before the worker goes. A flush alone proves nothing here: a worker flush completes as soon
     * as its interfaces are flushed, and a reply that waits for room in a peer's full receive
     * queue sits in a pending queue that no flush covers. UCX 1.18 discards such a reply at
     * {@code ucp_worker_destroy} by reading datatype fields it never set (SIGSEGV in
     * {@code ucp_request_dt_dereg}, whenever the stale bytes happen to name an I/O vector). A
     * live peer drains its queue as soon as its thread runs, and the reply then goes out; so the
     * worker counts as quiet only after {@value #QUIET_FLUSHES} flushes in a row and a stretch of
     * {@link #QUIET_NANOS} with no event, long enough for a busy peer's thread to be scheduled.
     * The loop parks between rounds so that, on a machine with few cores, that thread gets one.
     * A peer that never stops sending keeps the worker busy until {@code deadline}; then the
     * worker is left open.
     *
     * @return whether the worker went quiet before {@code deadline}
     * @throws Exception what JUCX's progress throws
     */
    private boolean quiesce(long deadline) throws Exception {
        int quiet = 0;
        long quietSince = System.nanoTime();
        while (System.nanoTime() - deadline < 0) {
            UcpRequest flush = worker.flushNonBlocking(null);
            int events = 0;
            while (!flush.isCompleted() && System.nanoTime() - deadline < 0) {
                events += worker.progress();
            }
            events += worker.progress();
            long now = System.nanoTime();
            if (flush.isCompleted() && events == 0) {
                quiet++;
            } else {
                quiet = 0;
                quietSince = now;
            }
            if (quiet >= QUIET_FLUSHES && now - quietSince >= QUIET_NANOS) {
                return true;
            }
            LockSupport.parkNanos(QUIET_PAUSE_NANOS);
        }
        return false;
    }

    /** Whether shutdown destroyed the worker (false: it was left open, and its memory must stay). */
    boolean workerDestroyed() {
        return workerDestroyed;
    }
}
