package io.blockxfer.holds;

import io.blockxfer.transport.Notification;
import java.util.Arrays;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One message of the hold protocol, as it travels in a notification's payload. {@link Holds} writes
 * and reads them; they are public so that a peer in another language can speak the protocol and a
 * test can forge one. Layout: {@code 'B' 'X' 'H' 1}, a type byte, then by type (big-endian; counts
 * are unsigned 16-bit):
 * <ul>
 *   <li>{@link Type#GRANT} (owner to holder): a {@link HoldGrant}: id (8), TTL in ms (4), tag
 *       length (varint) and tag, block count (varint), runs of consecutive blocks (start, length:
 *       varints);</li>
 *   <li>{@link Type#RENEW} (holder to owner): round (8), count, hold ids (8 each);</li>
 *   <li>{@link Type#RENEWED} (owner to holder): the renewal round answered (8), count, then per hold
 *       its id (8) and the time granted from the owner's receipt, in ms (4);</li>
 *   <li>{@link Type#RELEASE} (holder to owner): 1 when the holder is done, 0 when it gave up (1
 *       byte), count, hold ids;</li>
 *   <li>{@link Type#ENDED} (owner to holder): count, then per hold its id (8) and why it ended (1:
 *       {@link HoldEnd.Reason}'s code, 7 for a hold the owner does not know).</li>
 * </ul>
 * A message fits one notification: {@link #maxIds(Type)} ids at most.
 *
 * <p><b>Thread safety:</b> immutable; accessors return copies.
 */
public final class HoldMessage {

    /** What a message says. <b>Thread safety:</b> immutable. */
    public enum Type {
        /** A hold granted to the receiver. */
        GRANT(HoldGrant.TYPE),
        /** The holder asks to renew these holds. */
        RENEW(2),
        /** The owner renewed these holds. */
        RENEWED(3),
        /** The holder lets go of these holds. */
        RELEASE(4),
        /** The owner says these holds ended. */
        ENDED(5);

        private final int code;

        Type(int code) {
            this.code = code;
        }

        static Type ofCode(int code) {
            for (Type t : values()) {
                if (t.code == code) {
                    return t;
                }
            }
            throw new IllegalArgumentException("hold message: unknown type " + code);
        }
    }

    /** The code of an ENDED entry for a hold the owner does not know. */
    static final int UNKNOWN_HOLD = 7;
    private static final int HEADER = Wire.PREFIX.length + 1;

    private final Type type;
    private final long round;
    private final long[] ids;
    private final int[] values;
    private final boolean complete;
    private final @Nullable HoldGrant grant;

    private HoldMessage(Type type, long round, long[] ids, int[] values, boolean complete, @Nullable HoldGrant grant) {
        this.type = type;
        this.round = round;
        this.ids = ids;
        this.values = values;
        this.complete = complete;
        this.grant = grant;
    }

    /** Whether {@code payload} is meant for holds: it starts with the hold prefix. */
    public static boolean isHoldMessage(byte[] payload) {
        return Wire.hasPrefix(payload);
    }

    /** The most hold ids a message of {@code type} carries within one notification. */
    public static int maxIds(Type type) {
        int room = Notification.MAX_PAYLOAD_BYTES - HEADER - 2;
        return switch (type) {
            case GRANT -> 1;
            case RENEW -> (room - 8) / 8;
            case RENEWED -> (room - 8) / 12;
            case RELEASE -> (room - 1) / 8;
            case ENDED -> room / 9;
        };
    }

    private static long[] checkIds(Type type, long[] ids) {
        Objects.requireNonNull(ids, "ids");
        if (ids.length == 0 || ids.length > maxIds(type)) {
            throw new IllegalArgumentException("a " + type + " message carries 1 to " + maxIds(type) + " hold ids, not "
                    + ids.length);
        }
        return ids.clone();
    }

    /** A grant. */
    public static HoldMessage grant(HoldGrant grant) {
        return new HoldMessage(Type.GRANT, 0, new long[] {grant.holdId()}, new int[0], false, grant);
    }

    /** A request to renew {@code ids}, in the holder's renewal {@code round}. */
    public static HoldMessage renew(long round, long... ids) {
        return new HoldMessage(Type.RENEW, round, checkIds(Type.RENEW, ids), new int[0], false, null);
    }

    /**
     * The owner's answer to renewal {@code round}: each of {@code ids} was renewed for
     * {@code grantedMillis[i]} from the owner's receipt of the request.
     */
    public static HoldMessage renewed(long round, long[] ids, int[] grantedMillis) {
        long[] checked = checkIds(Type.RENEWED, ids);
        if (grantedMillis.length != ids.length) {
            throw new IllegalArgumentException("one granted time per hold id: " + grantedMillis.length + " for "
                    + ids.length);
        }
        for (int g : grantedMillis) {
            if (g < 0) {
                throw new IllegalArgumentException("a granted time is negative: " + g);
            }
        }
        return new HoldMessage(Type.RENEWED, round, checked, grantedMillis.clone(), false, null);
    }

    /** The holder lets go of {@code ids}: done with them ({@code complete}) or giving up. */
    public static HoldMessage release(boolean complete, long... ids) {
        return new HoldMessage(Type.RELEASE, 0, checkIds(Type.RELEASE, ids), new int[0], complete, null);
    }

    /** The owner says {@code ids} ended, each for {@code reasons[i]} (null: the owner does not know it). */
    public static HoldMessage ended(long[] ids, HoldEnd.@Nullable Reason[] reasons) {
        long[] checked = checkIds(Type.ENDED, ids);
        if (reasons.length != ids.length) {
            throw new IllegalArgumentException("one reason per hold id: " + reasons.length + " for " + ids.length);
        }
        int[] codes = new int[reasons.length];
        for (int i = 0; i < reasons.length; i++) {
            HoldEnd.Reason r = reasons[i];
            codes[i] = r == null ? UNKNOWN_HOLD : r.code();
        }
        return new HoldMessage(Type.ENDED, 0, checked, codes, false, null);
    }

    /**
     * Reads a message.
     *
     * @throws IllegalArgumentException naming what is wrong if {@code payload} is not a well-formed
     *     hold message
     */
    public static HoldMessage decode(byte[] payload) {
        Wire.Reader r = new Wire.Reader(payload, "hold message");
        Type type = Type.ofCode(r.type());
        if (type == Type.GRANT) {
            HoldGrant g = HoldGrant.read(r);
            return grant(g);
        }
        long round = type == Type.RENEW || type == Type.RENEWED ? r.getLong("round") : 0;
        boolean complete = false;
        if (type == Type.RELEASE) {
            int c = r.get("outcome");
            if (c > 1) {
                throw new IllegalArgumentException("hold message: release outcome " + c + " is neither 0 nor 1");
            }
            complete = c == 1;
        }
        int count = r.getShort("count");
        if (count == 0 || count > maxIds(type)) {
            throw new IllegalArgumentException("hold message: a " + type + " with " + count + " ids");
        }
        long[] ids = new long[count];
        int[] values = new int[type == Type.RENEWED || type == Type.ENDED ? count : 0];
        for (int i = 0; i < count; i++) {
            ids[i] = r.getLong("hold id");
            if (type == Type.RENEWED) {
                values[i] = r.getInt("granted time");
                if (values[i] < 0) {
                    throw new IllegalArgumentException("hold message: negative granted time " + values[i]);
                }
            } else if (type == Type.ENDED) {
                values[i] = r.get("reason");
                if (values[i] < 1 || values[i] > UNKNOWN_HOLD) {
                    throw new IllegalArgumentException("hold message: unknown end reason " + values[i]);
                }
            }
        }
        r.end();
        return new HoldMessage(type, round, ids, values, complete, null);
    }

    /** The message as a notification payload. */
    public byte[] encode() {
        if (grant != null) {
            return grant.encode();
        }
        Wire.Writer w = new Wire.Writer(type.code, HEADER + 11 + ids.length * 12);
        if (type == Type.RENEW || type == Type.RENEWED) {
            w.putLong(round);
        }
        if (type == Type.RELEASE) {
            w.put(complete ? 1 : 0);
        }
        w.putShort(ids.length);
        for (int i = 0; i < ids.length; i++) {
            w.putLong(ids[i]);
            if (type == Type.RENEWED) {
                w.putInt(values[i]);
            } else if (type == Type.ENDED) {
                w.put(values[i]);
            }
        }
        return w.toBytes();
    }

    /** What the message says. */
    public Type type() {
        return type;
    }

    /** The renewal round of a {@link Type#RENEW} or {@link Type#RENEWED}; 0 otherwise. */
    public long round() {
        return round;
    }

    /** The hold ids it names. */
    public long[] ids() {
        return ids.clone();
    }

    /** How many hold ids it names. */
    public int count() {
        return ids.length;
    }

    /** The {@code i}-th hold id. */
    public long id(int i) {
        return ids[i];
    }

    /** The time granted to the {@code i}-th hold of a {@link Type#RENEWED}, in ms. */
    public int grantedMillis(int i) {
        requireType(Type.RENEWED);
        return values[i];
    }

    /** Why the {@code i}-th hold of an {@link Type#ENDED} ended; null when the owner does not know it. */
    public HoldEnd.@Nullable Reason endReason(int i) {
        requireType(Type.ENDED);
        return values[i] == UNKNOWN_HOLD ? null : HoldEnd.Reason.ofCode(values[i]);
    }

    /** Whether a {@link Type#RELEASE} says the holder is done (rather than giving up). */
    public boolean complete() {
        return complete;
    }

    /** The grant of a {@link Type#GRANT}. */
    public HoldGrant grant() {
        if (grant == null) {
            throw new IllegalStateException("a " + type + " message carries no grant");
        }
        return grant;
    }

    private void requireType(Type t) {
        if (type != t) {
            throw new IllegalStateException("a " + type + " message, not a " + t);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HoldMessage m && type == m.type && round == m.round && Arrays.equals(ids, m.ids)
                && Arrays.equals(values, m.values) && complete == m.complete && Objects.equals(grant, m.grant);
    }

    @Override
    public int hashCode() {
        return Objects.hash(type, round, Arrays.hashCode(ids));
    }

    @Override
    public String toString() {
        return "HoldMessage[" + type + (round != 0 ? " round " + round : "") + ", " + ids.length + " holds"
                + (type == Type.RELEASE ? (complete ? ", done" : ", given up") : "") + "]";
    }
}
