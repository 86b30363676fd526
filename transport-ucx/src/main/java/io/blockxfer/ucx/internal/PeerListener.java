package io.blockxfer.ucx.internal;

import io.blockxfer.transport.TransportException;
import java.lang.System.Logger.Level;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.openucx.jucx.ucp.UcpConnectionRequest;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpEndpointParams;
import org.openucx.jucx.ucp.UcpListener;
import org.openucx.jucx.ucp.UcpListenerParams;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;

/**
 * A transport's listener for initiators on other hosts ({@link io.blockxfer.ucx.UcxOptions#LISTEN}),
 * and the endpoints it accepted. UCX 1.18 gives an endpoint in peer error mode zero-copy RMA over
 * TCP only when it was connected through a listener (its lanes are then point-to-point, which need
 * no memory invalidation); an endpoint connected by worker address gets RMA emulated with
 * messages. An initiator connects its endpoints here ({@link PeerRoute}), and this side must
 * create an endpoint of its own for each, or the initiator's never connects: one per connection
 * request, in peer error mode, at most {@value #MAX_ACCEPTED}. Nothing is issued on them; UCX
 * serves the initiator's puts and gets on them. When an accepted endpoint fails (its initiator
 * closed it, died or was cut off) it is force-closed and forgotten. At shutdown the listener closes
 * and the endpoints still accepted are left to the worker's destruction, which {@link LoopShutdown}
 * allows only once the worker has gone quiet, exactly as for the endpoints UCX creates itself for
 * initiators connected by worker address: closing them earlier would fail the replies UCX still
 * queues on them (data of READs), a path of UCX 1.18 that can crash the process.
 *
 * <p><b>Thread safety:</b> {@link #open} on the thread that creates the worker, before the loop
 * runs; everything else by the owner of the loop's worker (the connection handler and the
 * endpoints' error handlers run inside {@code progress()}).
 */
final class PeerListener {

    /** The loop's parts log under the loop's name. */
    private static final System.Logger LOG = System.getLogger(ProgressLoop.class.getName());
    /** The most endpoints accepted at once; further connection requests are rejected. */
    static final int MAX_ACCEPTED = 8192;

    /** One accepted endpoint, and its close once asked for. */
    private static final class Accepted {
        final UcpEndpoint endpoint;
        final String from;
        boolean failed;
        @Nullable UcpRequest close;
        boolean closeIssued;

        Accepted(UcpEndpoint endpoint, String from) {
            this.endpoint = endpoint;
            this.from = from;
        }
    }

    private final String name;
    private final UcpWorker worker;
    private final int maxAccepted;
    private final @Nullable UcpListener listener;
    private final @Nullable InetSocketAddress bound;
    private final ArrayList<Accepted> accepted = new ArrayList<>();
    private boolean closing;
    private long acceptedTotal;
    private long rejected;

    private PeerListener(String name, UcpWorker worker, int maxAccepted, @Nullable UcpListener listener,
            @Nullable InetSocketAddress bound) {
        this.name = name;
        this.worker = worker;
        this.maxAccepted = maxAccepted;
        this.listener = listener;
        this.bound = bound;
    }

    /** A listener that does not listen (the setting is off, or UCX has no TCP interface to listen on). */
    static PeerListener none(String name, UcpWorker worker) {
        return new PeerListener(name, worker, MAX_ACCEPTED, null, null);
    }

    /**
     * Listens on {@code worker} as {@code setting} says, where the worker has a TCP interface
     * ({@code own}, its address); else returns {@link #none}.
     *
     * @throws IllegalArgumentException if the setting names a host that does not resolve
     * @throws TransportException if UCX cannot listen there (e.g. the port is taken)
     */
    static PeerListener open(String name, UcpWorker worker, ListenSetting setting, UcpWorkerAddress own) {
        return open(name, worker, setting, own, MAX_ACCEPTED);
    }

    /** The same, accepting at most {@code maxAccepted} endpoints at once (for tests). */
    static PeerListener open(String name, UcpWorker worker, ListenSetting setting, UcpWorkerAddress own,
            int maxAccepted) {
        if (!setting.enabled() || own.entriesOf(UcpWorkerAddress.TCP).isEmpty()) {
            return none(name, worker);
        }
        InetAddress host = setting.host() != null ? resolve(setting.host()) : defaultHost(own);
        PeerListener[] self = new PeerListener[1];
        UcpListener l;
        try {
            l = worker.newListener(new UcpListenerParams().setSockAddr(new InetSocketAddress(host, setting.port()))
                    .setConnectionHandler(request -> self[0].onConnectionRequest(request)));
        } catch (RuntimeException e) {
            throw new TransportException("UCX could not listen for peers at " + describe(host.getAddress()) + ":"
                    + setting.port() + " (option " + io.blockxfer.ucx.UcxOptions.LISTEN + "=" + setting + "): "
                    + UcsStatus.describe(e), e);
        }
        InetSocketAddress at = l.getAddress();
        self[0] = new PeerListener(name, worker, maxAccepted, l, new InetSocketAddress(host, at.getPort()));
        return self[0];
    }

    private static InetAddress resolve(String host) {
        try {
            return InetAddress.getByName(host);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("option " + io.blockxfer.ucx.UcxOptions.LISTEN + ": host '" + host
                    + "' does not resolve", e);
        }
    }

    /**
     * Where to listen without a host: the worker's one TCP interface; its loopback when that is all
     * it has; every interface when it has several.
     */
    static InetAddress defaultHost(UcpWorkerAddress own) {
        Set<InetAddress> addresses = new LinkedHashSet<>();
        boolean loopback = false;
        boolean loopback6 = false;
        for (UcpWorkerAddress.Entry e : own.entriesOf(UcpWorkerAddress.TCP)) {
            InetAddress a = PeerRoute.ipOf(e);
            if (a != null) {
                addresses.add(a);
            } else if (PeerRoute.isLoopback(e)) {
                loopback = true;
                loopback6 |= PeerRoute.family(e) == PeerRoute.AF_INET6;
            }
        }
        if (addresses.size() == 1) {
            return addresses.iterator().next();
        }
        if (addresses.isEmpty() && loopback) {
            return loopback6 ? v6Loopback() : v4(new byte[] {127, 0, 0, 1});
        }
        boolean allV6 = !addresses.isEmpty() && addresses.stream().allMatch(a -> a instanceof Inet6Address);
        return allV6 ? v6(new byte[16]) : v4(new byte[4]);
    }

    private static InetAddress v6Loopback() {
        byte[] b = new byte[16];
        b[15] = 1;
        return v6(b);
    }

    private static InetAddress v4(byte[] b) {
        try {
            return Inet4Address.getByAddress(b);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    private static InetAddress v6(byte[] b) {
        try {
            return Inet6Address.getByAddress(b);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A listener's address as text: IPv4 dotted, IPv6 in brackets. */
    static String describe(byte[] address) {
        try {
            InetAddress a = InetAddress.getByAddress(address);
            return a instanceof Inet6Address ? "[" + a.getHostAddress() + "]" : a.getHostAddress();
        } catch (UnknownHostException e) {
            return "(" + address.length + "-byte address)";
        }
    }

    /** Where it listens (its bound address and port), or null when it does not listen. */
    @Nullable InetSocketAddress address() {
        return bound;
    }

    /** What the transport's metadata says of it, or null when it does not listen. */
    UcxMetadata.@Nullable Listener metadata() {
        InetSocketAddress b = bound;
        if (b == null) {
            return null;
        }
        InetAddress a = b.getAddress();
        return new UcxMetadata.Listener(b.getPort(), a.isAnyLocalAddress() ? new byte[0] : a.getAddress());
    }

    // ------------------------------------------------------------------ owner only

    private void onConnectionRequest(UcpConnectionRequest request) {
        String from = String.valueOf(request.getClientAddress());
        try {
            if (closing || accepted.size() >= maxAccepted) {
                rejected++;
                LOG.log(Level.DEBUG, () -> name + ": connection request from " + from + " rejected ("
                        + (closing ? "closing" : maxAccepted + " endpoints accepted") + ")");
                request.reject();
                return;
            }
            Accepted[] self = new Accepted[1];
            UcpEndpoint ep = worker.newEndpoint(new UcpEndpointParams().setConnectionRequest(request)
                    .setPeerErrorHandlingMode().setName("blockxfer-incoming:" + from)
                    .setErrorHandler((e, status, message) -> {
                        if (self[0] != null) {
                            self[0].failed = true;
                        }
                    }));
            self[0] = new Accepted(ep, from);
            accepted.add(self[0]);
            acceptedTotal++;
        } catch (RuntimeException | Error e) {
            // never let an exception unwind into UCX's progress
            LOG.log(Level.DEBUG, () -> name + ": accepting a connection from " + from + " failed: "
                    + UcsStatus.describe(e));
        }
    }

    /**
     * After {@code progress()}: force-closes accepted endpoints that failed, forgets closed ones.
     *
     * @return how many endpoints started or finished closing
     */
    int afterProgress() {
        int work = 0;
        for (int i = accepted.size() - 1; i >= 0; i--) {
            Accepted a = accepted.get(i);
            if (!a.closeIssued && a.failed) {
                a.closeIssued = true;
                try {
                    a.close = a.endpoint.closeNonBlockingForce();
                } catch (RuntimeException e) {
                    LOG.log(Level.DEBUG, () -> name + ": closing the endpoint accepted from " + a.from + " failed: "
                            + UcsStatus.describe(e));
                    a.close = null;
                }
                work++;
            }
            UcpRequest c = a.close;
            if (a.closeIssued && (c == null || c.isCompleted())) {
                accepted.remove(i);
                work++;
            }
        }
        return work;
    }

    /** At shutdown: stops listening; further connection requests are rejected. */
    void close() {
        if (closing) {
            return;
        }
        closing = true;
        UcpListener l = listener;
        if (l != null) {
            try {
                l.close();
            } catch (RuntimeException e) {
                LOG.log(Level.DEBUG, () -> name + ": closing the listener failed: " + UcsStatus.describe(e));
            }
        }
    }

    /** Whether accepted endpoints that failed are still to be closed or closing. */
    boolean closesPending() {
        for (Accepted a : accepted) {
            if (a.failed || a.closeIssued) {
                return true;
            }
        }
        return false;
    }

    /** How many accepted endpoints are open or closing (for tests and log lines). */
    int acceptedNow() {
        return accepted.size();
    }

    /** How many connection requests were accepted since open (for tests). */
    long acceptedTotal() {
        return acceptedTotal;
    }

    /** How many connection requests were rejected since open (for tests). */
    long rejected() {
        return rejected;
    }
}
