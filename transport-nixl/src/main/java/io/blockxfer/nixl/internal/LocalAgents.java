package io.blockxfer.nixl.internal;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * The NIXL transports of this JVM, by instance nonce, each with a {@link Fence}.
 *
 * <p>Why: when initiator and target live in one process, UCX moves bytes with plain memory copies
 * (CMA), and NIXL does not notice that a target agent was destroyed: a WRITE to it would still
 * "succeed" into freed memory. So an engine that targets a transport of its own JVM enters that
 * transport's fence for every transfer, and a closing transport first closes its fence (later
 * transfers to it fail at once) and waits for the transfers inside to end before it deregisters
 * and frees its region.
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
final class LocalAgents {

    private static final ConcurrentHashMap<Long, Fence> BY_NONCE = new ConcurrentHashMap<>();

    private LocalAgents() {
    }

    /** Registers a transport of this JVM under its nonce. */
    static Fence register(long nonce, String agentName) {
        Fence fence = new Fence(agentName);
        if (BY_NONCE.putIfAbsent(nonce, fence) != null) {
            throw new IllegalStateException("NIXL instance nonce collision: " + Long.toHexString(nonce));
        }
        return fence;
    }

    /** The fence of the transport of this JVM with {@code nonce}, or null (another process, or gone). */
    static @Nullable Fence find(long nonce, int pid, int ourPid) {
        return pid == ourPid ? BY_NONCE.get(nonce) : null;
    }

    /** Forgets a transport. */
    static void unregister(long nonce, Fence fence) {
        BY_NONCE.remove(nonce, fence);
    }

    /**
     * Counts the transfers of this JVM that target one transport, and refuses new ones once that
     * transport closes.
     *
     * <p><b>Thread safety:</b> thread-safe.
     */
    static final class Fence {
        private final String agentName;
        private final AtomicLong inside = new AtomicLong();
        private volatile boolean closed;

        Fence(String agentName) {
            this.agentName = agentName;
        }

        /** Counts one transfer in; false (and nothing counted) if the target closed. */
        boolean enter() {
            inside.incrementAndGet();
            if (closed) {
                inside.decrementAndGet();
                return false;
            }
            return true;
        }

        /** Counts one transfer out. */
        void exit() {
            inside.decrementAndGet();
        }

        boolean isClosed() {
            return closed;
        }

        String agentName() {
            return agentName;
        }

        /**
         * Refuses new transfers and waits until none is inside, at most {@code timeoutNanos}.
         *
         * @return whether every transfer left in time
         */
        boolean closeAndDrain(long timeoutNanos) {
            closed = true;
            long deadline = System.nanoTime() + timeoutNanos;
            while (inside.get() > 0) {
                if (System.nanoTime() - deadline > 0) {
                    return false;
                }
                LockSupport.parkNanos(100_000);
            }
            return true;
        }
    }
}
