package io.blockxfer.ucx.internal;

import io.blockxfer.transport.PeerRegistrationException;
import java.util.concurrent.CompletableFuture;

/**
 * Builds a peer's write endpoint and remote key on the owner of the loop's worker, and asks UCX
 * where the peer's region is mapped in this process. The registering thread waits on
 * {@link #result}; when it gives up first, the loop tears down what it built.
 *
 * <p><b>Thread safety:</b> handed over through the loop's queue; {@link #result} is thread-safe.
 */
final class ConnectCommand implements LoopCommand {

    final UcxPeer peer;
    final CompletableFuture<UcxPeer> result = new CompletableFuture<>();
    /** Where the peer's region is mapped in this process according to UCX (0: not), set before {@link #result}. */
    long mappedAddress;

    ConnectCommand(UcxPeer peer) {
        this.peer = peer;
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
