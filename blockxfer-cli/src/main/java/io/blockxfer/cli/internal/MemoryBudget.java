package io.blockxfer.cli.internal;

import java.lang.management.ManagementFactory;

/**
 * Sizes benchmark regions and refuses points that do not fit: each side needs
 * {@code batch x window} blocks, and a point holds a number of such regions on this host (two in
 * one process; three with a target process: the initiator's, the memcpy stand-in and the child's;
 * two with a remote target: the initiator's and the stand-in).
 *
 * <p><b>Thread safety:</b> immutable.
 */
public final class MemoryBudget {

    /** Transfers in flight aim at this many bytes, within [2, 16] transfers. */
    static final long AUTO_INFLIGHT_BYTES = 128L << 20;

    private final long limitBytes;
    private final String limitSource;

    private MemoryBudget(long limitBytes, String limitSource) {
        this.limitBytes = limitBytes;
        this.limitSource = limitSource;
    }

    /** {@code maxMemoryBytes} if positive, else half of this machine's physical memory. */
    public static MemoryBudget of(long maxMemoryBytes) {
        if (maxMemoryBytes > 0) {
            return new MemoryBudget(maxMemoryBytes, "--max-memory");
        }
        long physical = physicalMemory();
        return new MemoryBudget(physical / 2, "half of this machine's " + ByteSizes.format(physical)
                + "; raise it with --max-memory");
    }

    private static long physicalMemory() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getTotalMemorySize();
        }
        return 8L << 30;
    }

    /** The limit in bytes. */
    public long limitBytes() {
        return limitBytes;
    }

    /** The window for transfers of {@code transferBytes}: about 128 MiB in flight, 2 to 16 transfers. */
    public static int autoWindow(long transferBytes) {
        return (int) Math.max(2, Math.min(16, AUTO_INFLIGHT_BYTES / Math.max(1, transferBytes)));
    }

    /**
     * Checks a point that holds {@code regions} regions of {@code batch x window} blocks here.
     *
     * @throws CliException (a usage error) naming the sizes, what they need and the limit
     */
    public void check(long blockBytes, int batch, int window, int regions) {
        long blocks = (long) batch * window;
        String what = "block size " + ByteSizes.format(blockBytes) + " x batch " + batch + " x window " + window;
        if (blocks > Integer.MAX_VALUE) {
            throw CliException.usage(what + " needs " + blocks + " blocks per region, more than a region can hold");
        }
        long perRegion;
        long total;
        try {
            perRegion = Math.multiplyExact(blocks, blockBytes);
            total = Math.multiplyExact(perRegion, regions);
        } catch (ArithmeticException e) {
            throw CliException.usage(what + " needs more memory than can be addressed");
        }
        if (total > limitBytes) {
            throw CliException.usage(what + " needs " + regions + " regions of " + ByteSizes.format(perRegion)
                    + ", more than the limit of " + ByteSizes.format(limitBytes) + " (" + limitSource + ")");
        }
    }
}
