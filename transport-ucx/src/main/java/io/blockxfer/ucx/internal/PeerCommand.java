package io.blockxfer.ucx.internal;

/**
 * Aborts or disconnects a peer on the owner of the loop's worker.
 *
 * <p><b>Thread safety:</b> immutable; handed over through the loop's queue.
 */
record PeerCommand(UcxPeer peer, boolean disconnect) implements LoopCommand {

    @Override
    public void run(ProgressLoop loop) {
        if (disconnect) {
            loop.disconnect(peer);
        } else {
            loop.abort(peer);
        }
    }

    @Override
    public void reject(String why) {
        // the loop's shutdown closes every endpoint anyway
    }
}
