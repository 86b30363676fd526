package io.blockxfer.cli.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The payload of a benchmark's notification, {@value #BYTES} bytes: the run's tag, so that the
 * target counts only the notifications of the run it is measuring, and the initiator's
 * {@link System#nanoTime()} just before the submit, so that the target can time the notification
 * from the submit to its arrival without asking anyone.
 *
 * <p><b>Thread safety:</b> stateless.
 */
public final class NotifyStamp {

    /** The payload's length: two little-endian longs. */
    public static final int BYTES = 16;
    /** The tag of notifications sent while no run is measured (warm-ups); never armed. */
    public static final long UNMEASURED = 0;

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class,
            ByteOrder.LITTLE_ENDIAN);

    private NotifyStamp() {
    }

    /** A payload buffer, reused for every submit of one loop. */
    public static byte[] buffer() {
        return new byte[BYTES];
    }

    /** Writes {@code tag} and {@code submitNanos} into {@code payload}. */
    public static void write(byte[] payload, long tag, long submitNanos) {
        LONGS.set(payload, 0, tag);
        LONGS.set(payload, 8, submitNanos);
    }

    /** The run tag of a stamp. */
    public static long tag(byte[] payload) {
        return (long) LONGS.get(payload, 0);
    }

    /** The submit time of a stamp, in the initiator's {@link System#nanoTime()}. */
    public static long submitNanos(byte[] payload) {
        return (long) LONGS.get(payload, 8);
    }
}
