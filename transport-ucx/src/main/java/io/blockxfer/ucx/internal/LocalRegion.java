package io.blockxfer.ucx.internal;

import io.blockxfer.transport.BlockRegion;
import io.blockxfer.transport.RegionSpec;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpMemMapParams;
import org.openucx.jucx.ucp.UcpMemory;

/**
 * A transport's block region registered with UCX: memory UCX allocates ({@link RegionSpec#allocate};
 * on one host this is SysV shared memory, which peers' puts reach with one memcpy) or the caller's
 * memory ({@link RegionSpec#wrap}), with its packed remote key.
 *
 * <p><b>Thread safety:</b> immutable after construction; {@link #close} once, by the engine.
 */
final class LocalRegion implements AutoCloseable {

    private final UcpMemory memory;
    private final BlockRegion region;
    private final byte[] packedRkey;
    private boolean closed;

    private LocalRegion(UcpMemory memory, BlockRegion region, byte[] packedRkey) {
        this.memory = memory;
        this.region = region;
        this.packedRkey = packedRkey;
    }

    /** Maps (allocating or registering) the region {@code spec} asks for. */
    @SuppressWarnings("restricted") // sizing the segment UCX allocated
    static LocalRegion map(UcpContext context, RegionSpec spec) {
        long size = spec.byteSize();
        MemorySegment caller = spec.callerMemory().orElse(null);
        UcpMemory memory = caller == null
                ? context.memoryMap(new UcpMemMapParams().allocate().setLength(size))
                : context.memoryMap(new UcpMemMapParams().setAddress(caller.address()).setLength(size));
        try {
            BlockRegion region;
            if (caller == null) {
                if (memory.getLength() < size) {
                    throw new IllegalStateException("UCX mapped " + memory.getLength() + " bytes, " + size + " asked");
                }
                MemorySegment segment = MemorySegment.ofAddress(memory.getAddress()).reinterpret(size);
                region = new BlockRegion(segment, spec.numBlocks(), spec.blockLength(), BlockRegion.Ownership.BACKEND);
            } else {
                region = new BlockRegion(caller, spec.numBlocks(), spec.blockLength(), BlockRegion.Ownership.CALLER);
            }
            ByteBuffer rkey = memory.getRemoteKeyBuffer();
            byte[] packed = new byte[rkey.remaining()];
            rkey.duplicate().get(packed);
            return new LocalRegion(memory, region, packed);
        } catch (RuntimeException | Error e) {
            try {
                memory.deregister();
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    BlockRegion region() {
        return region;
    }

    /** The packed remote key peers unpack to reach this memory. */
    byte[] packedRkey() {
        return packedRkey.clone();
    }

    /** Unmaps the memory (and frees it, when UCX allocated it); idempotent. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            memory.deregister();
        }
    }
}
