package io.blockxfer.ucx.internal;

import io.blockxfer.transport.PeerRegistrationException;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * Builds a peer's write endpoint and remote key on the owner of the loop's worker, and asks UCX
 * where the peer's region is mapped in this process; or, for a peer reached through its listener
 * ({@link #via}), both its endpoints, which connect over the rounds that follow, and their keys
 * once they did. The registering thread waits on {@link #result}; when it gives up first, the
 * loop tears down what it built.
 *
 * <p><b>Thread safety:</b> handed over through the loop's queue; {@link #result} is thread-safe.
 */
final class ConnectCommand implements LoopCommand {

    final UcxPeer peer;
    /** The peer's listener to connect through ({@link PeerRoute}), or null to connect by worker address. */
    final @Nullable InetSocketAddress via;
    final CompletableFuture<UcxPeer> result = new CompletableFuture<>();
    /** Where the peer's region is mapped in this process according to UCX (0: not), set before {@link #result}. */
    long mappedAddress;
    /** When the loop started connecting through the listener (owner only). */
    long startedNanos;

    ConnectCommand(UcxPeer peer) {
        this(peer, null);
    }

    ConnectCommand(UcxPeer peer, @Nullable InetSocketAddress via) {
        this.peer = peer;
        this.via = via;
    }

    @Override
    public void run(ProgressLoop loop) {
        loop.connect(this);
    }

    @Override
    public void reject(String why) {
        result.completeExceptionally(new PeerRegistrationException("registering peer '" + peer.peerId
                + "' failed: " + why));
    }
}
