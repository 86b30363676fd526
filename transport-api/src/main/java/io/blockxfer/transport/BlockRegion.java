package io.blockxfer.transport;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * A transport's local memory: {@code numBlocks} blocks of {@code blockLength} bytes, contiguous,
 * block {@code i} at byte offset {@code i * blockLength} of {@link #segment()}.
 *
 * <p>The segment is native memory, either supplied by the caller ({@link Ownership#CALLER}, which
 * must keep it alive until the transport is closed) or allocated by the backend
 * ({@link Ownership#BACKEND}, freed by {@link DataTransport#close()}; a backend may allocate a
 * faster kind of memory, such as UCX-mapped shared memory).
 *
 * <p><b>Thread safety:</b> immutable; the bytes it describes are shared with the transport and
 * its peers, so reading or writing blocks that a transfer in flight touches is a data race.
 */
public final class BlockRegion {

    /** Who allocated, and who frees, the region's memory. */
    public enum Ownership {
        /** Supplied by the caller, who frees it after closing the transport. */
        CALLER,
        /** Allocated by the backend and freed when the transport closes. */
        BACKEND
    }

    private final MemorySegment segment;
    private final int numBlocks;
    private final long blockLength;
    private final Ownership ownership;

    /**
     * Describes {@code segment} as {@code numBlocks} blocks of {@code blockLength} bytes.
     *
     * @throws IllegalArgumentException if the segment is not native, the geometry is not positive,
     *     or the blocks do not fit in the segment
     */
    public BlockRegion(MemorySegment segment, int numBlocks, long blockLength, Ownership ownership) {
        Objects.requireNonNull(segment, "segment");
        Objects.requireNonNull(ownership, "ownership");
        if (!segment.isNative()) {
            throw new IllegalArgumentException("region segment must be native (off-heap) memory: " + segment);
        }
        if (numBlocks <= 0) {
            throw new IllegalArgumentException("numBlocks must be positive: " + numBlocks);
        }
        if (blockLength <= 0) {
            throw new IllegalArgumentException("blockLength must be positive: " + blockLength);
        }
        long total;
        try {
            total = Math.multiplyExact(numBlocks, blockLength);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("region size overflows: " + numBlocks + " x " + blockLength, e);
        }
        if (total > segment.byteSize()) {
            throw new IllegalArgumentException("region of " + numBlocks + " x " + blockLength
                    + " bytes does not fit in a segment of " + segment.byteSize() + " bytes");
        }
        this.segment = segment.asSlice(0, total);
        this.numBlocks = numBlocks;
        this.blockLength = blockLength;
        this.ownership = ownership;
    }

    /** The whole region, exactly {@code numBlocks * blockLength} bytes. */
    public MemorySegment segment() {
        return segment;
    }

    /** The number of blocks. */
    public int numBlocks() {
        return numBlocks;
    }

    /** The length of one block in bytes. */
    public long blockLength() {
        return blockLength;
    }

    /** The region's size in bytes. */
    public long byteSize() {
        return segment.byteSize();
    }

    /** The native address of block 0. */
    public long baseAddress() {
        return segment.address();
    }

    /** Who owns the memory. */
    public Ownership ownership() {
        return ownership;
    }

    /**
     * A view of block {@code index}.
     *
     * @throws IndexOutOfBoundsException if {@code index} is not a block of this region
     */
    public MemorySegment block(int index) {
        Objects.checkIndex(index, numBlocks);
        return segment.asSlice(index * blockLength, blockLength);
    }

    @Override
    public String toString() {
        return "BlockRegion[" + numBlocks + " x " + blockLength + " B at 0x" + Long.toHexString(baseAddress())
                + ", " + ownership + "]";
    }
}
