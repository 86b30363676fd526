package io.blockxfer.holds;

import io.blockxfer.transport.Notification;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * What an owner hands to the peer it holds blocks for: the hold's id, its TTL, the owner's blocks
 * it covers and an optional tag of the owner's (a request id, say). The holder turns it into a
 * {@link Lease} with {@link Holds#accept}. It travels as bytes: through the owner's own control
 * plane ({@link #encode()}, {@link #decode}) or as a notification ({@link Hold#sendGrant}), where it
 * fits one ({@link #fitsInNotification()}: runs of consecutive blocks cost a few bytes each).
 *
 * <p>The grant carries durations, never instants: the two hosts' clocks are not compared.
 *
 * <p><b>Thread safety:</b> immutable; accessors return copies.
 */
public final class HoldGrant {

    /** The longest tag a grant carries. */
    public static final int MAX_TAG_BYTES = 256;
    /** The most blocks one hold covers. */
    public static final int MAX_BLOCKS = 1 << 20;

    static final int TYPE = 1;

    private final long holdId;
    private final int ttlMillis;
    private final int[] blocks;
    private final byte[] tag;

    HoldGrant(long holdId, int ttlMillis, int[] blocks, byte[] tag) {
        this.holdId = holdId;
        this.ttlMillis = ttlMillis;
        this.blocks = blocks;
        this.tag = tag;
    }

    /** The hold's id, unique among the owner's holds. */
    public long holdId() {
        return holdId;
    }

    /** The hold's TTL: how long the owner keeps it without a renewal. */
    public Duration ttl() {
        return Duration.ofMillis(ttlMillis);
    }

    /** The owner's blocks the hold covers, in the order the owner gave them. */
    public int[] blocks() {
        return blocks.clone();
    }

    /** How many blocks the hold covers. */
    public int blockCount() {
        return blocks.length;
    }

    /** The owner's tag; empty when it gave none. */
    public byte[] tag() {
        return tag.clone();
    }

    int[] blocksUnsafe() {
        return blocks;
    }

    int ttlMillis() {
        return ttlMillis;
    }

    /** The grant as bytes, for the owner's control plane. */
    public byte[] encode() {
        Wire.Writer w = new Wire.Writer(TYPE, 32 + tag.length + blocks.length);
        w.putLong(holdId).putInt(ttlMillis).putVarint(tag.length).putBytes(tag).putVarint(blocks.length);
        int i = 0;
        while (i < blocks.length) {
            int start = blocks[i];
            int run = 1;
            while (i + run < blocks.length && blocks[i + run] == start + run) {
                run++;
            }
            w.putVarint(start).putVarint(run);
            i += run;
        }
        return w.toBytes();
    }

    /** Whether {@link #encode()} fits one notification ({@link Notification#MAX_PAYLOAD_BYTES}). */
    public boolean fitsInNotification() {
        return encode().length <= Notification.MAX_PAYLOAD_BYTES;
    }

    /**
     * Reads a grant that {@link #encode()} wrote.
     *
     * @throws IllegalArgumentException naming what is wrong if the bytes are not a well-formed grant:
     *     no hold prefix, another message, truncated, trailing bytes, a TTL outside
     *     [{@link Holds#MIN_TTL}, {@link Holds#MAX_TTL}], a tag or block count over its limit, a
     *     negative or repeated block
     */
    public static HoldGrant decode(byte[] bytes) {
        Objects.requireNonNull(bytes, "bytes");
        Wire.Reader r = new Wire.Reader(bytes, "hold grant");
        if (r.type() != TYPE) {
            throw new IllegalArgumentException("hold grant: a hold message of type " + r.type() + ", not a grant");
        }
        return read(r);
    }

    static HoldGrant read(Wire.Reader r) {
        long id = r.getLong("hold id");
        int ttl = r.getInt("ttl");
        Holds.checkTtl(Duration.ofMillis(ttl));
        int tagLength = r.getVarint("tag length");
        if (tagLength > MAX_TAG_BYTES) {
            throw new IllegalArgumentException("hold grant: tag of " + tagLength + " bytes; at most " + MAX_TAG_BYTES);
        }
        byte[] tag = r.getBytes(tagLength, "tag");
        int count = r.getVarint("block count");
        if (count == 0 || count > MAX_BLOCKS) {
            throw new IllegalArgumentException("hold grant: " + count + " blocks; between 1 and " + MAX_BLOCKS);
        }
        int[] blocks = new int[count];
        int n = 0;
        while (n < count) {
            int start = r.getVarint("run start");
            int run = r.getVarint("run length");
            if (run == 0 || run > count - n || (long) start + run - 1 > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("hold grant: a run of " + run + " blocks from " + start
                        + " does not fit " + count + " blocks");
            }
            for (int k = 0; k < run; k++) {
                blocks[n++] = start + k;
            }
        }
        r.end();
        checkDistinct(blocks, "hold grant");
        return new HoldGrant(id, ttl, blocks, tag);
    }

    /**
     * Checks that no block appears twice.
     *
     * @throws IllegalArgumentException naming the first repeated block
     */
    static void checkDistinct(int[] blocks, String what) {
        int[] sorted = blocks.clone();
        Arrays.sort(sorted);
        for (int i = 1; i < sorted.length; i++) {
            if (sorted[i] == sorted[i - 1]) {
                throw new IllegalArgumentException(what + ": block " + sorted[i] + " appears twice");
            }
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HoldGrant g && holdId == g.holdId && ttlMillis == g.ttlMillis
                && Arrays.equals(blocks, g.blocks) && Arrays.equals(tag, g.tag);
    }

    @Override
    public int hashCode() {
        return Objects.hash(holdId, ttlMillis, Arrays.hashCode(blocks), Arrays.hashCode(tag));
    }

    @Override
    public String toString() {
        return "HoldGrant[hold " + Long.toHexString(holdId) + ", ttl " + ttlMillis + " ms, " + blocks.length
                + " blocks" + (tag.length == 0 ? "" : ", tag 0x" + HexFormat.of().formatHex(tag, 0,
                Math.min(tag.length, 16)) + (tag.length > 16 ? "..." : "")) + "]";
    }
}
