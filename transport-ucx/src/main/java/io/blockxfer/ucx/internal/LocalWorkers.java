package io.blockxfer.ucx.internal;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;

/**
 * The UCX workers of the open transports of this process, each with its worker address and its
 * region. A peer whose address leads to one of them (its self id, its FIFO segments, its TCP
 * listener) is a transport of this very process, and then blockxfer knows the truth: the peer's
 * region must lie inside that transport's region. (UCX delivers software-emulated writes by
 * copying to whatever address the initiator names, inside the target's process: without this, a
 * descriptor naming a worker of this process and another address would make UCX write into this
 * process's memory at that address.) A segment of this process named by a remote key must likewise
 * be the region of one of these transports, at its true base.
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
final class LocalWorkers {

    /**
     * An open transport's worker: its address, region, the shared-memory segment of its region
     * ({@link #segmentKey}, null for caller memory), and where it listens for peers.
     *
     * @param address the worker address
     * @param base the region's base address
     * @param bytes the region's size
     * @param segmentKey the region's segment, or null
     * @param listener the listener's bound address and port, or null when it does not listen
     */
    record Worker(UcpWorkerAddress address, long base, long bytes, @Nullable String segmentKey,
            @Nullable InetSocketAddress listener) {
    }

    private static final CopyOnWriteArrayList<Worker> WORKERS = new CopyOnWriteArrayList<>();

    private LocalWorkers() {
    }

    /** Key of a SysV segment. */
    static String sysv(long shmid) {
        return "sysv:" + shmid;
    }

    /** Key of a posix segment id. */
    static String posix(long segId) {
        return "posix:" + Long.toHexString(segId);
    }

    static void add(Worker w) {
        WORKERS.add(w);
    }

    static void remove(Worker w) {
        WORKERS.remove(w);
    }

    /** The live transport whose region is in segment {@code key}, or null. */
    static @Nullable Worker bySegment(String key) {
        for (Worker w : WORKERS) {
            if (key.equals(w.segmentKey())) {
                return w;
            }
        }
        return null;
    }

    /**
     * The workers of this process whose listener a connection to {@code target} reaches: the same
     * port, and {@code target} an address of this host that the listener takes (its bound address,
     * or any, for one on every interface).
     */
    static Set<Worker> reachedByListener(InetSocketAddress target) {
        Set<Worker> found = new LinkedHashSet<>();
        InetAddress to = target.getAddress();
        if (to == null || !isLocal(to)) {
            return found;
        }
        for (Worker w : WORKERS) {
            InetSocketAddress l = w.listener();
            if (l != null && l.getPort() == target.getPort()
                    && (l.getAddress().isAnyLocalAddress() || l.getAddress().equals(to))) {
                found.add(w);
            }
        }
        return found;
    }

    /** Whether {@code address} is one of this host's: loopback, the wildcard, or an interface's. */
    static boolean isLocal(InetAddress address) {
        if (address.isLoopbackAddress() || address.isAnyLocalAddress()) {
            return true;
        }
        try {
            return NetworkInterface.getByInetAddress(address) != null;
        } catch (SocketException e) {
            return true; // cannot tell: treat as this host's, so its region is checked
        }
    }

    /**
     * The workers of this process that some entry of {@code peer} leads to: the same self id, the
     * same sysv or posix FIFO segment, or the same TCP device and port.
     */
    static Set<Worker> reachedBy(UcpWorkerAddress peer) {
        Set<Worker> found = new LinkedHashSet<>();
        for (UcpWorkerAddress.Entry e : peer.entries()) {
            int tl = e.tlChecksum();
            if (tl != UcpWorkerAddress.SELF && tl != UcpWorkerAddress.SYSV && tl != UcpWorkerAddress.POSIX
                    && tl != UcpWorkerAddress.TCP) {
                continue;
            }
            for (Worker w : WORKERS) {
                for (UcpWorkerAddress.Entry own : w.address().entriesOf(tl)) {
                    boolean same = tl == UcpWorkerAddress.SELF
                            ? Arrays.equals(own.iface(), e.iface())
                            : tl == UcpWorkerAddress.TCP
                                    ? Arrays.equals(own.iface(), e.iface()) && Arrays.equals(own.device(), e.device())
                                    : own.ifaceLong(0) == e.ifaceLong(0);
                    if (same) {
                        found.add(w);
                    }
                }
            }
        }
        return found;
    }
}
