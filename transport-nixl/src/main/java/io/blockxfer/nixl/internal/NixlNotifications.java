package io.blockxfer.nixl.internal;

import io.blockxfer.transport.spi.NotificationSink;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToIntFunction;
import org.jspecify.annotations.Nullable;

/**
 * A NIXL engine's notifications, both ways: what it sends ({@link OutboundMessages}), the notified
 * transfers still in flight ({@link NotifiedTransfers}), and, once the transport binds its sink, the
 * drain of the agent's received messages ({@link NotificationDrain}) with the notification thread
 * ({@link NotificationPump}); plus the names under which received messages are delivered (the peer
 * id each NIXL agent was last connected under).
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
final class NixlNotifications {

    private final MemorySegment agent;
    private final String owner;
    private final String threadName;
    private final OutboundMessages outbound;
    private final NotifiedTransfers notified;
    /** NIXL agent name to the peer id it was last connected under. */
    private final ConcurrentHashMap<String, String> peerOfAgent = new ConcurrentHashMap<>();
    private final Object lock = new Object();
    private volatile @Nullable NotificationDrain drain;
    private volatile @Nullable NotificationPump pump;
    private boolean closed; // guarded by lock

    /**
     * @param agent the engine's agent
     * @param check checks the status of a notified transfer no other thread is checking
     * @param owner how the engine names itself
     * @param threadName the name of the notification thread
     */
    NixlNotifications(MemorySegment agent, ToIntFunction<NixlXfer> check, String owner, String threadName) {
        this.agent = agent;
        this.owner = owner;
        this.threadName = threadName;
        this.outbound = new OutboundMessages(agent, owner);
        this.notified = new NotifiedTransfers(check);
    }

    /** Where a transfer's message goes on its way out. */
    OutboundMessages outbound() {
        return outbound;
    }

    /** A notified transfer is in flight after its post. */
    void inFlight(NixlXfer x) {
        x.postedNanos = System.nanoTime();
        notified.add(x);
    }

    /** {@code peerId} was connected to NIXL agent {@code agentName}. */
    void connected(String agentName, String peerId) {
        peerOfAgent.put(agentName, peerId);
    }

    /** {@code peerId} was disconnected from NIXL agent {@code agentName}. */
    void disconnected(String agentName, String peerId) {
        peerOfAgent.remove(agentName, peerId);
    }

    /**
     * Starts receiving into {@code sink} and starts the notification thread.
     *
     * @throws IllegalStateException if a sink is bound already, or closed
     */
    void bind(NotificationSink sink) {
        synchronized (lock) {
            if (closed) {
                throw new IllegalStateException(owner + " is closed");
            }
            if (drain != null) {
                throw new IllegalStateException(owner + " already has a notification sink");
            }
            NotificationDrain d = new NotificationDrain(agent, sink, peerOfAgent::get, owner);
            drain = d;
            pump = new NotificationPump(d, notified::advance, notified::any, threadName);
        }
    }

    /** Drains received messages on the calling thread unless another thread does; how many it delivered. */
    int drain() {
        NotificationDrain d = drain;
        return d == null ? 0 : d.drain();
    }

    /** Callers started or stopped waiting. */
    void callersWaiting(boolean waiting) {
        NotificationPump p = pump;
        if (p != null) {
            p.callersWaiting(waiting);
        }
    }

    /**
     * Stops the thread (waiting up to {@code timeoutNanos}), frees the map and the pooled arguments;
     * before the agent is destroyed. Idempotent.
     */
    void close(long timeoutNanos) {
        synchronized (lock) {
            closed = true;
        }
        NotificationPump p = pump;
        if (p != null) {
            p.stop(timeoutNanos);
        }
        NotificationDrain d = drain;
        if (d != null) {
            d.close();
        }
        outbound.close();
    }
}
