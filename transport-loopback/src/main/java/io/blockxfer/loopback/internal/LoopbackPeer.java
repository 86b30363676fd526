package io.blockxfer.loopback.internal;

/**
 * A registered loopback peer: the target engine and the part of its region the descriptor
 * advertised. {@link #aborted} is the force-close of this connection.
 *
 * <p><b>Thread safety:</b> immutable apart from the volatile abort flag.
 */
final class LoopbackPeer {

    final String peerId;
    final LoopbackEngine target;
    final int numBlocks;
    volatile boolean aborted;

    LoopbackPeer(String peerId, LoopbackEngine target, int numBlocks) {
        this.peerId = peerId;
        this.target = target;
        this.numBlocks = numBlocks;
    }
}
