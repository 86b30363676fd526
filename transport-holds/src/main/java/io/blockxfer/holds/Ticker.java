package io.blockxfer.holds;

import io.blockxfer.transport.NotificationHandler;
import java.lang.System.Logger.Level;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * The thread of a {@link Holds} that ticks every interval and, when asked, takes the transport's
 * notifications meanwhile (waiting on the transport, not spinning). None is started when ticks are
 * manual and nothing is pumped.
 *
 * <p><b>Thread safety:</b> {@link #start()} and {@link #close()} from any thread, once each.
 */
final class Ticker implements Runnable {

    private static final System.Logger LOG = System.getLogger(Holds.class.getName());
    private static final long PUMP_WAIT = TimeUnit.MILLISECONDS.toNanos(100);

    private final Holds holds;
    private final String agent;
    private final long tickNanos;
    private final @Nullable NotificationHandler pump;
    private volatile boolean stopped;
    private volatile @Nullable Thread thread;

    Ticker(Holds holds, String agent, long tickNanos, @Nullable NotificationHandler others) {
        this.holds = holds;
        this.agent = agent;
        this.tickNanos = tickNanos;
        this.pump = others == null ? null : holds.handler(others);
    }

    void start() {
        if (tickNanos == 0 && pump == null) {
            return;
        }
        thread = Thread.ofPlatform().daemon().name("blockxfer-holds-" + agent).start(this);
    }

    @Override
    public void run() {
        NotificationHandler handler = pump;
        boolean pumping = handler != null;
        long next = System.nanoTime() + tickNanos;
        while (!stopped) {
            long wait = tickNanos == 0 ? PUMP_WAIT : Math.max(0, next - System.nanoTime());
            if (pumping && handler != null) {
                try {
                    holds.transport().pollNotifications(handler, wait, TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    if (stopped) {
                        return;
                    }
                } catch (IllegalStateException transportClosed) {
                    pumping = false;
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "holds: a notification handler threw; the pump goes on", e);
                }
            } else {
                LockSupport.parkNanos(wait);
            }
            if (tickNanos > 0 && System.nanoTime() >= next) {
                try {
                    holds.tick();
                } catch (RuntimeException e) {
                    LOG.log(Level.ERROR, "holds: a tick failed; the next one comes as usual", e);
                }
                next = System.nanoTime() + tickNanos;
            }
        }
    }

    void close() {
        stopped = true;
        Thread t = thread;
        if (t == null || t == Thread.currentThread()) {
            return;
        }
        t.interrupt();
        LockSupport.unpark(t);
        try {
            t.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
