package io.blockxfer.nixl.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.blockxfer.transport.spi.NotificationSink;
import java.lang.System.Logger.Level;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Takes the messages that reached one NIXL agent out of NIXL and hands them to the transport's
 * {@link NotificationSink}: {@code get_notifs} into a map of our own, each message copied out of
 * the map's borrowed pointers, the map cleared, then the messages delivered, each exactly once (NIXL
 * forgets what {@code get_notifs} returned). A message is delivered under the name the engine knows
 * its sending agent by: the peer id it connected that agent under, else the NIXL agent name.
 *
 * <p>Until someone asks, NIXL keeps the messages in a list of its own without bound (its progress
 * thread appends to it), so the engine drains from every {@code progress()} call and from its
 * notification thread ({@link NotificationPump}) while nobody polls.
 *
 * <p><b>Thread safety:</b> thread-safe; one thread drains at a time, and a thread that finds another
 * draining returns at once ({@link #drain()} never blocks).
 */
final class NotificationDrain {

    private static final System.Logger LOG = System.getLogger(NotificationDrain.class.getName());
    private static final long LOG_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final MemorySegment agent;
    private final NotificationSink sink;
    private final Function<String, @Nullable String> peerOfAgent;
    private final String owner;
    private final ReentrantLock lock = new ReentrantLock();
    private final MemorySegment map;
    private final MemorySegment count = Arena.ofAuto().allocate(JAVA_LONG);
    private final MemorySegment pointer = Arena.ofAuto().allocate(ADDRESS);
    private final MemorySegment length = Arena.ofAuto().allocate(JAVA_LONG);
    // guarded by lock
    private final List<byte[]> messages = new ArrayList<>();
    /** The peer id of each message's sender, or null when its agent is no connected peer. */
    private final List<@Nullable String> peers = new ArrayList<>();
    /** The NIXL agent name of each message's sender. */
    private final List<String> agentNames = new ArrayList<>();
    private boolean closed;
    private boolean freed;
    private long lastErrorLog = System.nanoTime() - LOG_EVERY_NANOS;
    private volatile long lastDrainNanos = System.nanoTime();

    /**
     * @param agent the local agent whose messages these are
     * @param peerOfAgent the peer id a NIXL agent name was connected under, or null
     * @param owner how the engine names itself in log lines
     * @throws NixlException if NIXL cannot make the map
     */
    NotificationDrain(MemorySegment agent, NotificationSink sink, Function<String, @Nullable String> peerOfAgent,
            String owner) {
        this.agent = agent;
        this.sink = sink;
        this.peerOfAgent = peerOfAgent;
        this.owner = owner;
        MemorySegment out = Arena.ofAuto().allocate(ADDRESS);
        NixlStatus.check("nixl_capi_create_notif_map", NixlNative.createNotifMap(out));
        this.map = out.get(ADDRESS, 0);
    }

    /** When a drain last ran ({@link System#nanoTime()}), by any thread. */
    long lastDrainNanos() {
        return lastDrainNanos;
    }

    /**
     * Takes what reached the agent and delivers it, unless another thread is doing so (or the drain
     * closed, or the sink called back into the transport from inside a delivery): never blocks. NIXL
     * errors are logged (at most once a minute) and what NIXL did return is still delivered.
     *
     * @return how many messages it delivered
     */
    int drain() {
        if (lock.isHeldByCurrentThread() || !lock.tryLock()) {
            return 0;
        }
        try {
            if (closed) {
                return 0;
            }
            lastDrainNanos = System.nanoTime();
            int status = NixlNative.getNotifs(agent, map, MemorySegment.NULL);
            if (status != NixlStatus.SUCCESS) {
                logError("nixl_capi_get_notifs", status);
            }
            if (NixlNative.notifMapSize(map, count) != NixlStatus.SUCCESS) {
                return 0;
            }
            long agents = count.get(JAVA_LONG, 0);
            if (agents == 0) {
                return 0;
            }
            copyOut(agents);
            int clear = NixlNative.notifMapClear(map);
            if (clear != NixlStatus.SUCCESS) {
                // delivered below exactly once all the same; a map that cannot be cleared would deliver them again
                logError("nixl_capi_notif_map_clear", clear);
                closed = true;
            }
            int n = messages.size();
            for (int i = 0; i < n; i++) {
                try {
                    sink.received(messages.get(i), peers.get(i), agentNames.get(i));
                } catch (RuntimeException e) {
                    // the transport's sink never throws; another one must not cost the rest their delivery
                    LOG.log(Level.WARNING, () -> owner + ": the notification sink failed: " + e);
                }
            }
            messages.clear();
            peers.clear();
            agentNames.clear();
            return n;
        } finally {
            lock.unlock();
        }
    }

    /** Copies every message of the map out of its borrowed pointers (valid until the map changes). */
    private void copyOut(long agents) {
        for (long a = 0; a < agents; a++) {
            if (NixlNative.notifMapGetAgentAt(map, a, pointer) != NixlStatus.SUCCESS) {
                continue;
            }
            MemorySegment name = pointer.get(ADDRESS, 0);
            String agentName = NixlNative.cString(name);
            String peer = peerOfAgent.apply(agentName);
            if (NixlNative.notifMapGetNotifsSize(map, name, count) != NixlStatus.SUCCESS) {
                continue;
            }
            long n = count.get(JAVA_LONG, 0);
            for (long i = 0; i < n; i++) {
                if (NixlNative.notifMapGetNotif(map, name, i, pointer, length) != NixlStatus.SUCCESS) {
                    continue;
                }
                long bytes = length.get(JAVA_LONG, 0);
                messages.add(bytes == 0 ? new byte[0] : NixlNative.copyBytes(pointer.get(ADDRESS, 0), bytes));
                peers.add(peer);
                agentNames.add(agentName);
            }
        }
    }

    private void logError(String call, int status) {
        long now = System.nanoTime();
        if (now - lastErrorLog >= LOG_EVERY_NANOS) {
            lastErrorLog = now;
            LOG.log(Level.WARNING, () -> owner + ": " + NixlStatus.describe(call, status)
                    + " (further errors in the next minute are not logged)");
        }
    }

    /**
     * Frees the map; later drains do nothing. Waits for a drain in progress. Call it before the agent
     * is destroyed (which frees what NIXL still holds). Idempotent.
     */
    void close() {
        lock.lock();
        try {
            closed = true;
            if (!freed) {
                freed = true;
                NixlNative.destroyNotifMap(map);
            }
        } finally {
            lock.unlock();
        }
    }
}
