package io.blockxfer.transport.internal;

import static io.blockxfer.transport.internal.TransportLog.LOG;

import java.lang.System.Logger.Level;
import org.jspecify.annotations.Nullable;

/**
 * Tells when a peer starts failing and when it recovers, once per change of state (a log line and
 * a telemetry event), never once per transfer.
 *
 * <p><b>Thread safety:</b> thread-safe; each call needs the slot's monitor.
 */
public final class PeerHealth {

    private final Telemetry telemetry;
    private final String label;

    /** @param label how the transport names itself in log lines */
    public PeerHealth(Telemetry telemetry, String label) {
        this.telemetry = telemetry;
        this.label = label;
    }

    /** Notes that {@code what} failed, with its error if any. */
    public void failed(PeerSlot slot, String what, @Nullable Throwable error) {
        if (!slot.failing) {
            slot.failing = true;
            String reason = what + " failed" + (error == null ? "" : ": " + error);
            LOG.log(Level.WARNING, "{0}: peer ''{1}'' is failing: {2}", label, slot.peerId, reason);
            telemetry.peerFailing(slot.peerId, reason);
        }
    }

    /** Notes that the peer missed the transfer deadline and its connection was aborted. */
    public void missedDeadline(PeerSlot slot, long timeoutNanos) {
        if (!slot.failing) {
            slot.failing = true;
            LOG.log(Level.WARNING, "{0}: peer ''{1}'' missed the transfer deadline of {2} ms; its connection was"
                    + " aborted and its overdue transfers are reported failed", label, slot.peerId,
                    timeoutNanos / 1_000_000);
            telemetry.peerFailing(slot.peerId, "missed the transfer deadline of " + timeoutNanos / 1_000_000 + " ms");
        }
    }

    /** Notes that the peer works again (a transfer completed, or a new registration published). */
    public void recovered(PeerSlot slot) {
        if (slot.failing) {
            slot.failing = false;
            telemetry.peerRecovered(slot.peerId);
        }
    }
}
