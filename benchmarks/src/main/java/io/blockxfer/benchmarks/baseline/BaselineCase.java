package io.blockxfer.benchmarks.baseline;

/**
 * The two cases every baseline contender runs, one transfer in flight at a time (submit, wait until
 * it is done, submit the next), each transfer on distinct blocks, as a KV cache moves them:
 * <ul>
 *   <li>{@link #SMALL}: one 4 KiB block per transfer, transfer {@code k} on block {@code k mod 4096}
 *       of a 16 MiB region on both sides; reported in transfers per second;</li>
 *   <li>{@link #LARGE}: 64 blocks of 256 KiB per transfer, transfer {@code k} on slot
 *       {@code s = k mod 4} of a 64 MiB region: local blocks {@code 64s + i}, remote blocks
 *       {@code 64s + (37i + 11) mod 64}, so no two neighbours coalesce; reported in GB/s (10^9 B/s).</li>
 * </ul>
 * The Python and C drivers compute exactly the same indices.
 *
 * <p><b>Thread safety:</b> an enum; immutable.
 */
public enum BaselineCase {
    /** One 4 KiB block per transfer. */
    SMALL("small", 4096, 1, 4096, "1 x 4 KiB WRITE, transfers/s"),
    /** 64 blocks of 256 KiB per transfer. */
    LARGE("large", 256 * 1024, 64, 256, "64 x 256 KiB WRITE, GB/s");

    private final String key;
    private final long blockBytes;
    private final int batch;
    private final int regionBlocks;
    private final String title;

    BaselineCase(String key, long blockBytes, int batch, int regionBlocks, String title) {
        this.key = key;
        this.blockBytes = blockBytes;
        this.batch = batch;
        this.regionBlocks = regionBlocks;
        this.title = title;
    }

    /** The name the drivers use. */
    public String key() {
        return key;
    }

    /** The block size. */
    public long blockBytes() {
        return blockBytes;
    }

    /** Blocks per transfer. */
    public int batch() {
        return batch;
    }

    /** Blocks in each side's region. */
    public int regionBlocks() {
        return regionBlocks;
    }

    /** How many distinct transfers there are before the indices repeat. */
    public int slots() {
        return regionBlocks / batch;
    }

    /** The row title in reports. */
    public String title() {
        return title;
    }

    /** The local block indices of slot {@code s}. */
    public int[] local(int s) {
        int[] idx = new int[batch];
        for (int i = 0; i < batch; i++) {
            idx[i] = s * batch + i;
        }
        return idx;
    }

    /** The remote block indices of slot {@code s}. */
    public int[] remote(int s) {
        int[] idx = new int[batch];
        for (int i = 0; i < batch; i++) {
            idx[i] = s * batch + (batch == 1 ? 0 : (37 * i + 11) % batch);
        }
        return idx;
    }

    /** The reported rate of {@code transfers} done in {@code nanos}. */
    public double rate(long transfers, long nanos) {
        double perSecond = transfers / (nanos / 1e9);
        return this == SMALL ? perSecond : perSecond * batch * blockBytes / 1e9;
    }

    /** The case named {@code key}. */
    public static BaselineCase of(String key) {
        for (BaselineCase c : values()) {
            if (c.key.equals(key)) {
                return c;
            }
        }
        throw new IllegalArgumentException("unknown case '" + key + "'");
    }
}
