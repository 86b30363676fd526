package io.blockxfer.nixl.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Per-thread native scratch of the engine's hot path (index arrays, out-parameters, telemetry, a
 * notification's bytes): nothing is allocated per transfer. Freed by the garbage collector with its
 * thread.
 *
 * <p><b>Thread safety:</b> confined to its thread ({@link #get()}).
 */
final class NixlScratch {

    private static final ThreadLocal<NixlScratch> SCRATCH = ThreadLocal.withInitial(NixlScratch::new);

    final MemorySegment out = Arena.ofAuto().allocate(ADDRESS);
    final MemorySegment telemetry = Arena.ofAuto().allocate(NixlNative.XFER_TELEMETRY);
    MemorySegment localIndices = Arena.ofAuto().allocate(JAVA_INT, 1024);
    MemorySegment remoteIndices = Arena.ofAuto().allocate(JAVA_INT, 1024);
    private MemorySegment message = Arena.ofAuto().allocate(JAVA_BYTE, 2048);

    private NixlScratch() {
    }

    /** The calling thread's scratch. */
    static NixlScratch get() {
        return SCRATCH.get();
    }

    /** Makes the index arrays hold at least {@code count} entries. */
    void ensure(int count) {
        if (localIndices.byteSize() < (long) count * Integer.BYTES) {
            long n = Math.max(count, localIndices.byteSize() / Integer.BYTES * 2);
            localIndices = Arena.ofAuto().allocate(JAVA_INT, n);
            remoteIndices = Arena.ofAuto().allocate(JAVA_INT, n);
        }
    }

    /** {@code bytes} copied into native memory of this thread, valid until the next call. */
    MemorySegment message(byte[] bytes) {
        if (message.byteSize() < bytes.length) {
            message = Arena.ofAuto().allocate(JAVA_BYTE, Math.max(bytes.length, message.byteSize() * 2));
        }
        MemorySegment.copy(bytes, 0, message, JAVA_BYTE, 0, bytes.length);
        return message;
    }
}
