package io.blockxfer.ucx.internal;

import io.blockxfer.transport.PeerRegistrationException;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.openucx.jucx.ucp.UcpWorker;

/**
 * The peers of a {@link ProgressLoop}: builds their endpoints, marks a peer failed, and closes
 * their endpoints. A peer whose endpoint fails (its error handler fires, or an operation reports
 * the failure) is marked failed once: nothing more is issued on it and its endpoints are
 * force-closed; a removed or replaced peer is aborted the same way. UCX cannot abort an RMA
 * operation, and an endpoint must not be freed under a request UCX still holds on it (see
 * {@link PeerEndpoint}), so a transfer ends only when UCX ended its requests, and an endpoint
 * closes only after that. On a healthy peer that is at once; on a failed one UCX ends them with an
 * error within a few progress calls.
 *
 * <p><b>Thread safety:</b> owner only: every method runs on the current owner of the loop's worker
 * (in a command, after {@code progress()} in a round, in an endpoint's error handler inside
 * {@code progress()}, or at shutdown); the lists of peers pass from owner to owner with the worker.
 */
final class PeerConnections {

    /** The loop's parts log under the loop's name. */
    private static final System.Logger LOG = System.getLogger(ProgressLoop.class.getName());
    /** After how long an endpoint close that still waits is worth a log line. */
    private static final long SLOW_CLOSE_NANOS = TimeUnit.SECONDS.toNanos(5);
    /**
     * How long a connection through a listener may take once its registering thread stopped
     * waiting (it waits 15 s) before the loop gives up on it and closes its endpoints.
     */
    private static final long CONNECT_GIVE_UP_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final String name;
    private final UcpWorker worker;

    // ---- owner only
    private final ArrayList<UcxPeer> peers = new ArrayList<>();
    private final ArrayDeque<UcxPeer> toForceClose = new ArrayDeque<>();
    private final ArrayList<UcxPeer> closing = new ArrayList<>();
    /** Peers whose endpoints connect through their listener, until both are wired up. */
    private final ArrayList<ConnectCommand> connecting = new ArrayList<>();

    /** The peers reached through {@code worker}. */
    PeerConnections(String name, UcpWorker worker) {
        this.name = name;
        this.worker = worker;
    }

    /**
     * Builds the write endpoint and remote key of a peer, and asks where its region is mapped; for
     * a peer reached through its listener, starts connecting both its endpoints, which
     * {@link #afterProgress} finishes.
     */
    void connect(ConnectCommand c) {
        UcxPeer p = c.peer;
        InetSocketAddress via = c.via;
        if (via != null) {
            connectThroughListener(c, via);
            return;
        }
        try {
            p.writes = PeerEndpoint.open(worker, "blockxfer:" + p.peerId, p.metadata,
                    (ep, status, message) -> endpointError(p, status, message));
        } catch (RuntimeException | LinkageError e) {
            p.state = UcxPeer.FAILED;
            p.failure = "registration failed";
            c.result.completeExceptionally(new PeerRegistrationException("UCX could not reach peer '" + p.peerId
                    + "' from its metadata (" + p.metadata + "): " + UcsStatus.describe(e)
                    + ResourceShortage.describe(), e));
            return;
        }
        try {
            c.mappedAddress = p.writes.mappedAddress(p.remoteBase);
        } catch (RuntimeException | LinkageError e) {
            LOG.log(Level.DEBUG, () -> name + ": asking UCX where " + p + " is mapped failed: " + e);
            c.mappedAddress = 0;
        }
        peers.add(p);
        if (!c.result.complete(p)) {
            // the registering thread gave up waiting: nothing will use or disconnect this peer
            disconnect(p);
        }
    }

    private void connectThroughListener(ConnectCommand c, InetSocketAddress via) {
        UcxPeer p = c.peer;
        try {
            p.writes = PeerEndpoint.connect(worker, "blockxfer:" + p.peerId, via,
                    (ep, status, message) -> endpointError(p, status, message));
            p.reads = PeerEndpoint.connect(worker, "blockxfer-read:" + p.peerId, via,
                    (ep, status, message) -> endpointError(p, status, message));
        } catch (RuntimeException | LinkageError e) {
            p.state = UcxPeer.FAILED;
            p.failure = "registration failed";
            p.disconnectRequested = true;
            startClose(p, true);
            c.result.completeExceptionally(new PeerRegistrationException("UCX could not connect to peer '"
                    + p.peerId + "' through its listener at " + via + ": " + UcsStatus.describe(e)
                    + ResourceShortage.describe(), e));
            return;
        }
        c.startedNanos = System.nanoTime();
        connecting.add(c);
    }

    /**
     * Moves connections through listeners on: once both endpoints of a peer are wired up, unpacks
     * their keys and hands the peer out; fails the registration when an endpoint failed, and gives
     * up on one that the registering thread no longer waits for after {@link #CONNECT_GIVE_UP_NANOS}.
     */
    private int connectingProgress(long now) {
        int work = 0;
        for (int i = connecting.size() - 1; i >= 0; i--) {
            ConnectCommand c = connecting.get(i);
            UcxPeer p = c.peer;
            PeerEndpoint w = Objects.requireNonNull(p.writes, "a connecting peer has its write endpoint");
            PeerEndpoint r = Objects.requireNonNull(p.reads, "a connecting peer has its read endpoint");
            boolean writesWired = w.wiredUp(); // both asked: each counts its ended wireup off
            boolean readsWired = r.wiredUp();
            boolean wired = writesWired && readsWired;
            String failure = null;
            if (p.state != UcxPeer.ALIVE) {
                failure = p.failure;
            } else if (wired && (w.wireupStatus() != UcsStatus.OK || r.wireupStatus() != UcsStatus.OK)) {
                failure = "connecting failed (" + UcsStatus.describe(w.wireupStatus() != UcsStatus.OK
                        ? w.wireupStatus() : r.wireupStatus()) + ")";
            } else if (!wired && c.result.isDone() && now - c.startedNanos > CONNECT_GIVE_UP_NANOS) {
                failure = "not connected after " + TimeUnit.NANOSECONDS.toSeconds(CONNECT_GIVE_UP_NANOS) + " s";
            } else if (!wired) {
                continue;
            }
            connecting.remove(i);
            work++;
            if (failure == null) {
                try {
                    w.unpack(p.metadata);
                    r.unpack(p.metadata);
                } catch (RuntimeException | LinkageError e) {
                    failure = "unpacking its remote key failed: " + UcsStatus.describe(e);
                }
            }
            if (failure != null) {
                if (p.state == UcxPeer.ALIVE) {
                    p.state = UcxPeer.FAILED;
                    p.failure = failure;
                }
                p.disconnectRequested = true;
                startClose(p, true);
                c.result.completeExceptionally(new PeerRegistrationException("UCX could not connect to peer '"
                        + p.peerId + "' through its listener at " + c.via + ": " + failure
                        + ResourceShortage.describe()));
                continue;
            }
            peers.add(p);
            if (!c.result.complete(p)) {
                disconnect(p); // the registering thread gave up waiting
            }
        }
        return work;
    }

    /** The peer's read endpoint, built on first use; null (and the peer failed) if that fails. */
    @Nullable PeerEndpoint readEndpoint(UcxPeer p) {
        if (p.reads == null) {
            try {
                p.reads = PeerEndpoint.open(worker, "blockxfer-read:" + p.peerId, p.metadata,
                        (ep, status, message) -> endpointError(p, status, message));
            } catch (RuntimeException | LinkageError e) {
                peerFailed(p, UcsStatus.statusOf(e, UcsStatus.CONNECTION_RESET), "opening the read endpoint: "
                        + UcsStatus.describe(e));
                return null;
            }
        }
        return p.reads;
    }

    private void endpointError(UcxPeer p, int status, String message) {
        try {
            peerFailed(p, status, "endpoint error: " + message);
        } catch (RuntimeException | Error e) {
            LOG.log(Level.ERROR, name + ": endpoint error handling failed", e);
        }
    }

    /** Marks a peer failed, once: nothing more is issued on it and its endpoints are force-closed. */
    void peerFailed(UcxPeer p, int status, String what) {
        if (p.state != UcxPeer.ALIVE) {
            return;
        }
        p.failure = what + " (" + UcsStatus.describe(status) + ")";
        p.state = UcxPeer.FAILED;
        if (!p.aborted) {
            // a peer that closed or died while idle is news, not trouble; failing transfers are
            LOG.log(p.inFlight > 0 ? Level.WARNING : Level.INFO, "{0}: UCX connection to peer ''{1}'' failed: {2};"
                    + " it takes no more transfers, its {3} transfers in flight fail and its endpoints are"
                    + " force-closed", name, p.peerId, p.failure, p.inFlight);
        }
        toForceClose.add(p);
    }

    /** Aborts a peer: force-closes its endpoints once UCX ended what it holds of them. */
    void abort(UcxPeer p) {
        if (p.state == UcxPeer.ALIVE) {
            p.failure = "connection aborted (peer removed, replaced or past its deadline)";
            p.state = UcxPeer.ABORTED;
        }
        startClose(p, true);
    }

    /** Releases a peer whose transfers were all released: a graceful close when it is healthy. */
    void disconnect(UcxPeer p) {
        p.disconnectRequested = true;
        if (p.closing) {
            if (!closing.contains(p)) {
                peers.remove(p);
            }
            return;
        }
        boolean healthy = p.state == UcxPeer.ALIVE && p.inFlight == 0;
        if (p.state == UcxPeer.ALIVE) {
            p.state = UcxPeer.CLOSED;
        }
        startClose(p, !healthy);
    }

    private void startClose(UcxPeer p, boolean force) {
        if (p.closing) {
            return;
        }
        p.closing = true;
        long now = System.nanoTime();
        p.closeStartedNanos = now;
        if (p.writes != null) {
            p.writes.startClose(force, now);
        }
        if (p.reads != null) {
            p.reads.startClose(force, now);
        }
        closing.add(p);
    }

    /** A peer's endpoints closed: nothing of it is left in UCX; free the remote keys. */
    private void closed(UcxPeer p, RequestTracker transfers) {
        transfers.failInFlight(p);
        p.mapped = null;
        if (p.writes != null) {
            p.writes.destroyRkey();
        }
        if (p.reads != null) {
            p.reads.destroyRkey();
        }
        if (p.state == UcxPeer.ALIVE) {
            p.state = UcxPeer.CLOSED;
        }
        if (p.disconnectRequested) {
            peers.remove(p);
        }
    }

    /**
     * After {@code progress()}: force-closes peers that failed inside it, and moves endpoint closes
     * on; a peer whose endpoints closed fails through {@code transfers} what UCX did not end.
     *
     * @return how many peers started or finished closing
     */
    int afterProgress(RequestTracker transfers) {
        int work = connecting.isEmpty() ? 0 : connectingProgress(System.nanoTime());
        UcxPeer p;
        while ((p = toForceClose.poll()) != null) {
            startClose(p, true);
            work++;
        }
        if (!closing.isEmpty()) {
            long now = System.nanoTime();
            for (int i = closing.size() - 1; i >= 0; i--) {
                UcxPeer c = closing.get(i);
                if (c.writes != null) {
                    c.writes.closeWhenIdle(now);
                }
                if (c.reads != null) {
                    c.reads.closeWhenIdle(now);
                }
                if (c.endpointsClosed()) {
                    closing.remove(i);
                    closed(c, transfers);
                    work++;
                } else if (!c.slowCloseLogged && now - c.closeStartedNanos > SLOW_CLOSE_NANOS) {
                    c.slowCloseLogged = true;
                    LOG.log(Level.DEBUG, () -> name + ": the endpoints of " + c + " are still closing after "
                            + TimeUnit.NANOSECONDS.toMillis(SLOW_CLOSE_NANOS) + " ms (" + c.inFlight
                            + " transfers still held by UCX)");
                }
            }
        }
        return work;
    }

    /** Whether a peer's endpoints are still connecting, to be force-closed or closing. */
    boolean closesPending() {
        return !closing.isEmpty() || !toForceClose.isEmpty() || !connecting.isEmpty();
    }

    /** Whether no peer's endpoints are still closing. */
    boolean noneClosing() {
        return closing.isEmpty();
    }

    /** The peers whose endpoints are still closing, with the transfers they hold, for a log line. */
    String describeClosing() {
        return closing.stream().map(p -> p + " (" + p.inFlight + " transfers)").collect(Collectors.joining(", "));
    }

    /** At shutdown: disconnects every peer, and fails the registrations still connecting. */
    void disconnectAll() {
        for (ConnectCommand c : connecting) {
            UcxPeer p = c.peer;
            if (p.state == UcxPeer.ALIVE) {
                p.state = UcxPeer.ABORTED;
                p.failure = "the transport closed while connecting";
            }
            p.disconnectRequested = true;
            startClose(p, true);
            c.result.completeExceptionally(new PeerRegistrationException("registering peer '" + p.peerId
                    + "' failed: the transport closed while its endpoints connected"));
        }
        connecting.clear();
        for (UcxPeer p : new ArrayList<>(peers)) {
            disconnect(p);
        }
    }

    /** At shutdown, when nobody progresses the worker any more: fails what every peer still holds. */
    void failInFlight(RequestTracker transfers) {
        for (UcxPeer p : peers) {
            transfers.failInFlight(p);
        }
        for (UcxPeer p : closing) {
            transfers.failInFlight(p);
        }
    }
}
