package io.blockxfer.ucx.internal;

import java.lang.System.Logger.Level;

/**
 * Sends a notification without a transfer on the owner of the loop's worker, on the peer's write
 * endpoint.
 *
 * <p><b>Thread safety:</b> immutable; handed over through the loop's queue.
 */
@SuppressWarnings("ArrayRecordComponent") // the frame is handed on as it is, never compared
record NotifyCommand(UcxPeer peer, byte[] frame) implements LoopCommand {

    @Override
    public void run(ProgressLoop loop) {
        loop.sendNotification(peer, frame);
    }

    @Override
    public void reject(String why) {
        peer.messageEnded();
        System.getLogger(ProgressLoop.class.getName()).log(Level.DEBUG, () -> "a notification to " + peer
                + " was not sent: " + why);
    }
}
