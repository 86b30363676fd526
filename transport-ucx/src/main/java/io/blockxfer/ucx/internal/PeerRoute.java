package io.blockxfer.ucx.internal;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * How an initiator connects its endpoints to a peer: through the peer's listener
 * ({@link PeerListener}), which gives zero-copy RMA over TCP, or by the peer's worker address,
 * which UCX 1.18 serves with shared memory on one host, with RDMA where there is a fabric, and
 * with RMA emulated by messages over TCP. Through the listener only when all of these hold:
 * <ul>
 *   <li>the peer listens (its metadata names a listener);</li>
 *   <li>it is not on this host as UCX sees it (no shared-memory transport of its address names
 *       this host's id): on one host shared memory is the memcpy-speed path;</li>
 *   <li>tcp is its only network transport (an RDMA transport in its address keeps UCX's own
 *       choice);</li>
 *   <li>an address of it can be named: the listener's own, or, for a listener on every interface,
 *       one of the IP addresses of its worker address's TCP interfaces (one on a subnet of this
 *       host's interfaces first, else the first), or the loopback address for a peer whose only
 *       TCP interface is the loopback of this very host.</li>
 * </ul>
 *
 * <p><b>Thread safety:</b> stateless.
 */
final class PeerRoute {

    /** Linux's {@code AF_INET}. */
    static final int AF_INET = 2;
    /** Linux's {@code AF_INET6}. */
    static final int AF_INET6 = 10;

    private PeerRoute() {
    }

    /**
     * Where to connect to {@code remote} through its listener, or null to connect by its worker
     * address ({@code local}: this transport, for the host and loopback comparisons).
     */
    static @Nullable InetSocketAddress choose(UcxMetadata remote, LocalIdentity local) {
        UcxMetadata.Listener listener = remote.listener();
        if (listener == null) {
            return null;
        }
        UcpWorkerAddress address = remote.address();
        List<UcpWorkerAddress.Entry> tcp = new ArrayList<>();
        for (UcpWorkerAddress.Entry e : address.entries()) {
            int tl = e.tlChecksum();
            if (tl == UcpWorkerAddress.SYSV || tl == UcpWorkerAddress.POSIX || tl == UcpWorkerAddress.CMA) {
                if (local.sameHost(e)) {
                    return null;
                }
            } else if (tl == UcpWorkerAddress.TCP) {
                tcp.add(e);
            } else if (tl != UcpWorkerAddress.SELF) {
                return null; // an RDMA (or other) transport: UCX's own choice
            }
        }
        if (tcp.isEmpty()) {
            return null;
        }
        List<InetAddress> ips = new ArrayList<>();
        boolean ownLoopback = false;
        boolean loopback6 = false;
        for (UcpWorkerAddress.Entry e : tcp) {
            InetAddress ip = ipOf(e);
            if (ip != null) {
                ips.add(ip);
            } else if (isLoopback(e) && local.ownTcpLoopback(e)) {
                ownLoopback = true;
                loopback6 |= family(e) == AF_INET6;
            }
        }
        InetAddress target;
        if (!listener.everyInterface()) {
            if (ips.isEmpty() && !ownLoopback) {
                return null;
            }
            target = byAddress(listener.boundAddress());
        } else if (!ips.isEmpty()) {
            target = preferLocalSubnet(ips);
        } else if (ownLoopback) {
            target = loopback6 ? byAddress(loopback(16)) : byAddress(loopback(4));
        } else {
            return null;
        }
        return target == null ? null : new InetSocketAddress(target, listener.port());
    }

    /** The first of {@code ips} on a subnet of one of this host's interfaces, else the first. */
    private static InetAddress preferLocalSubnet(List<InetAddress> ips) {
        try {
            List<InterfaceAddress> own = new ArrayList<>();
            for (NetworkInterface n : NetworkInterface.networkInterfaces().toList()) {
                if (n.isUp()) {
                    own.addAll(n.getInterfaceAddresses());
                }
            }
            for (InetAddress ip : ips) {
                for (InterfaceAddress a : own) {
                    if (sameSubnet(ip, a.getAddress(), a.getNetworkPrefixLength())) {
                        return ip;
                    }
                }
            }
        } catch (SocketException | RuntimeException e) {
            // no interface list: the first address
        }
        return ips.getFirst();
    }

    static boolean sameSubnet(InetAddress a, @Nullable InetAddress b, int prefix) {
        if (b == null) {
            return false;
        }
        byte[] x = a.getAddress();
        byte[] y = b.getAddress();
        if (x.length != y.length || prefix < 0 || prefix > x.length * 8) {
            return false;
        }
        for (int bit = 0; bit < prefix; bit++) {
            int mask = 0x80 >>> (bit % 8);
            if ((x[bit / 8] & mask) != (y[bit / 8] & mask)) {
                return false;
            }
        }
        return true;
    }

    private static byte[] loopback(int bytes) {
        byte[] b = new byte[bytes];
        if (bytes == 4) {
            b[0] = 127;
        }
        b[bytes - 1] = 1;
        return b;
    }

    private static @Nullable InetAddress byAddress(byte[] raw) {
        try {
            return InetAddress.getByAddress(raw);
        } catch (UnknownHostException e) {
            return null;
        }
    }

    /** Whether a tcp entry's device address is a loopback interface (flag bit 0). */
    static boolean isLoopback(UcpWorkerAddress.Entry tcp) {
        return (tcp.device()[0] & 0x01) != 0;
    }

    /** The address family of a tcp entry's device address. */
    static int family(UcpWorkerAddress.Entry tcp) {
        return tcp.device()[1] & 0xff;
    }

    /** The IP address of a tcp entry that is not a loopback interface, else null. */
    static @Nullable InetAddress ipOf(UcpWorkerAddress.Entry tcp) {
        byte[] d = tcp.device();
        if (isLoopback(tcp)) {
            return null;
        }
        return byAddress(Arrays.copyOfRange(d, 2, d.length)); // 4 or 16 bytes, as UcpWorkerAddress checked
    }
}
