package io.blockxfer.ucx.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The handshake that lets the progress thread sleep without missing a submit. One state word,
 * changed only by atomic exchanges on both sides:
 * <ul>
 *   <li>a submitter, after publishing its command, exchanges the state for {@link #NOTIFIED} and
 *       wakes the thread if the value it took out says the thread sleeps ({@link #PARKED},
 *       {@link #WAITING});</li>
 *   <li>the thread, before sleeping, exchanges the state for how it will sleep; if it takes out
 *       {@link #NOTIFIED}, a submit was published since it last looked, so it does not sleep.
 *       Otherwise it still checks its queue, and sleeps only if that is empty.</li>
 * </ul>
 * Both exchanges are volatile read-modify-writes of one variable, so they are totally ordered: either
 * the submitter's comes first (the thread takes out {@code NOTIFIED}, and everything the submitter
 * published before it is visible to the thread's queue check), or the thread's comes first (the
 * submitter takes out the sleeping state and wakes it). A plain volatile read of the state after a
 * release store of the command, as this replaced, allows neither: the store may become visible
 * after the read (a StoreLoad reordering), so a submitter could read "running" while the thread
 * read "empty", and the command waited for an unrelated event.
 *
 * <p>{@link #DORMANT} is a sleep that nobody needs to end: the thread left the work to polling
 * threads and wakes by itself after a bounded time.
 *
 * <p><b>Thread safety:</b> thread-safe; {@link #published} from any thread, the other methods from
 * the one thread that sleeps.
 */
final class WakeupGate {

    /** The thread is running and will look at its queue again. */
    static final int RUNNING = 0;
    /** The thread is parked ({@code LockSupport}) for a bounded time; unparking wakes it. */
    static final int PARKED = 1;
    /** The thread sleeps on the worker's event descriptor; {@code UcpWorker.signal()} wakes it. */
    static final int WAITING = 2;
    /** A submit was published since the thread last announced a sleep. */
    static final int NOTIFIED = 3;
    /** The thread sleeps a bounded time while polling threads drive; nothing needs to wake it. */
    static final int DORMANT = 4;

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(WakeupGate.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused") // accessed through STATE
    private volatile int state = RUNNING;

    /**
     * A submitter published a command: returns the state it found, which tells the caller whether
     * to wake the thread ({@link #PARKED}: unpark; {@link #WAITING}: signal the worker).
     */
    int published() {
        return (int) STATE.getAndSet(this, NOTIFIED);
    }

    /**
     * The thread is about to sleep in the way {@code how} ({@link #PARKED}, {@link #WAITING} or
     * {@link #DORMANT}): false if a submit was published since it last looked (do not sleep). After
     * true, the thread must still find its queue empty before it sleeps, and call {@link #awake}
     * after.
     */
    boolean maySleep(int how) {
        return (int) STATE.getAndSet(this, how) != NOTIFIED;
    }

    /** The thread is running again (woken, or it decided not to sleep). */
    void awake() {
        STATE.getAndSet(this, RUNNING);
    }

    /** The current state, for diagnostics and tests. */
    int state() {
        return (int) STATE.getVolatile(this);
    }
}
