package io.blockxfer.transport;

import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What region a transport should use: memory the backend allocates, or memory the caller supplies.
 *
 * <p><b>Thread safety:</b> immutable.
 */
public final class RegionSpec {

    private static final Thread ANY_OTHER_THREAD = Thread.ofPlatform().unstarted(() -> { });

    private final int numBlocks;
    private final long blockLength;
    private final @Nullable MemorySegment callerMemory;

    private RegionSpec(int numBlocks, long blockLength, @Nullable MemorySegment callerMemory) {
        if (numBlocks <= 0) {
            throw new IllegalArgumentException("numBlocks must be positive: " + numBlocks);
        }
        if (blockLength <= 0) {
            throw new IllegalArgumentException("blockLength must be positive: " + blockLength);
        }
        try {
            Math.multiplyExact(numBlocks, blockLength);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("region size overflows: " + numBlocks + " x " + blockLength, e);
        }
        this.numBlocks = numBlocks;
        this.blockLength = blockLength;
        this.callerMemory = callerMemory;
    }

    /** The backend allocates {@code numBlocks * blockLength} bytes and frees them on close. */
    public static RegionSpec allocate(int numBlocks, long blockLength) {
        return new RegionSpec(numBlocks, blockLength, null);
    }

    /**
     * The caller's native {@code segment}, cut into blocks of {@code blockLength} bytes (a partial
     * block at the end is not used). The segment must be accessible from every thread, since
     * backends move bytes on threads of their own, and the caller keeps it alive until the
     * transport is closed.
     */
    public static RegionSpec wrap(MemorySegment segment, long blockLength) {
        Objects.requireNonNull(segment, "segment");
        if (!segment.isNative()) {
            throw new IllegalArgumentException("region segment must be native (off-heap) memory: " + segment);
        }
        if (!segment.isAccessibleBy(ANY_OTHER_THREAD)) {
            throw new IllegalArgumentException("region segment must be accessible from every thread (allocate it with"
                    + " Arena.ofShared(), Arena.global() or Arena.ofAuto(), not a confined arena): " + segment);
        }
        if (blockLength <= 0) {
            throw new IllegalArgumentException("blockLength must be positive: " + blockLength);
        }
        long blocks = segment.byteSize() / blockLength;
        if (blocks <= 0 || blocks > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("segment of " + segment.byteSize() + " bytes holds " + blocks
                    + " blocks of " + blockLength + " bytes; need 1 to " + Integer.MAX_VALUE);
        }
        return new RegionSpec((int) blocks, blockLength, segment);
    }

    /** The number of blocks. */
    public int numBlocks() {
        return numBlocks;
    }

    /** The block length in bytes. */
    public long blockLength() {
        return blockLength;
    }

    /** The region's size in bytes. */
    public long byteSize() {
        return numBlocks * blockLength;
    }

    /** The caller's memory, or empty when the backend allocates. */
    public Optional<MemorySegment> callerMemory() {
        return Optional.ofNullable(callerMemory);
    }

    @Override
    public String toString() {
        return "RegionSpec[" + numBlocks + " x " + blockLength + " B, "
                + (callerMemory == null ? "backend-allocated" : "caller memory") + "]";
    }
}
