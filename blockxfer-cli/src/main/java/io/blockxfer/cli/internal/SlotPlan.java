package io.blockxfer.cli.internal;

import java.util.Random;

/**
 * The block indices of a benchmark's transfers: {@code window} slots, one per transfer that may be
 * in flight, each with {@code batch} distinct local and remote blocks. Slot {@code s} owns blocks
 * {@code [s * batch, (s + 1) * batch)} on both sides, so transfers in flight never share a block.
 * The arrays are built once and reused by every submit.
 *
 * <p><b>Thread safety:</b> immutable after construction; the arrays must not be modified.
 */
public final class SlotPlan {

    private final int[][] local;
    private final int[][] remote;
    private final int batch;
    private final BlockLayout layout;

    private SlotPlan(int[][] local, int[][] remote, int batch, BlockLayout layout) {
        this.local = local;
        this.remote = remote;
        this.batch = batch;
        this.layout = layout;
    }

    /** A plan of {@code window} slots of {@code batch} blocks in {@code layout}; seeded, so repeatable. */
    public static SlotPlan of(int window, int batch, BlockLayout layout) {
        int[][] local = new int[window][batch];
        int[][] remote = new int[window][batch];
        Random random = new Random(0x5EEDL * 31 + batch);
        for (int s = 0; s < window; s++) {
            int base = s * batch;
            for (int i = 0; i < batch; i++) {
                local[s][i] = base + i;
                remote[s][i] = base + i;
            }
            if (layout == BlockLayout.SHUFFLED && batch > 1) {
                derange(remote[s], random);
            }
        }
        return new SlotPlan(local, remote, batch, layout);
    }

    /** Shuffles so that no remote index follows its left neighbour by one (no run can be merged). */
    private static void derange(int[] a, Random random) {
        for (int attempt = 0; attempt < 100; attempt++) {
            for (int i = a.length - 1; i > 0; i--) {
                int j = random.nextInt(i + 1);
                int t = a[i];
                a[i] = a[j];
                a[j] = t;
            }
            if (noRuns(a)) {
                return;
            }
        }
        // tiny batches: reversing always breaks runs
        java.util.Arrays.sort(a);
        for (int i = 0, j = a.length - 1; i < j; i++, j--) {
            int t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }

    private static boolean noRuns(int[] a) {
        for (int i = 1; i < a.length; i++) {
            if (a[i] == a[i - 1] + 1) {
                return false;
            }
        }
        return true;
    }

    /** The number of slots. */
    public int window() {
        return local.length;
    }

    /** How local and remote blocks are paired (the same layout, window and batch give the same plan). */
    public BlockLayout layout() {
        return layout;
    }

    /** The number of blocks per transfer. */
    public int batch() {
        return batch;
    }

    /** The number of blocks each side needs. */
    public int blocksNeeded() {
        return local.length * batch;
    }

    /** The local indices of slot {@code s}; shared, do not modify. */
    public int[] local(int s) {
        return local[s];
    }

    /** The remote indices of slot {@code s}; shared, do not modify. */
    public int[] remote(int s) {
        return remote[s];
    }
}
