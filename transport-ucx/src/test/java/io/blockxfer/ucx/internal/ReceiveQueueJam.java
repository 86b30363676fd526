package io.blockxfer.ucx.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;

/**
 * Leaves a transport's shared-memory receive queues as a peer SIGKILLed in the middle of sending
 * it a message leaves them. UCX's shared-memory transports (sysv, posix) give every worker one
 * receive FIFO that all its peers write into: a sender reserves the next slot by advancing the
 * FIFO's head with a compare-and-set, writes the message, then sets the slot's owner bit; the
 * receiver reads slots strictly in order and waits for the owner bit of the next one. A sender
 * killed between the two steps leaves a reserved slot that is never published, and the receiver
 * never reads a message again, from any peer. This does the first step and not the second.
 *
 * <p><b>Thread safety:</b> stateless.
 */
final class ReceiveQueueJam {

    /** {@code UCT_MM_IFACE_FIFO_HEAD_EVENT_ARMED}: a flag bit of the head, cleared by every sender. */
    private static final long EVENT_ARMED = 1L << 63;
    private static final VarHandle LONG = JAVA_LONG.varHandle();

    private ReceiveQueueJam() {
    }

    /** Jams every sysv and posix FIFO that {@code metadata}'s worker address names; returns how many. */
    @SuppressWarnings("restricted") // attaching and writing UCX's FIFO control block, a test's job here
    static int jam(UcxMetadata metadata) throws IOException {
        int jammed = 0;
        for (UcpWorkerAddress.Entry e : metadata.address().entriesOf(UcpWorkerAddress.SYSV)) {
            Linker linker = Linker.nativeLinker();
            MethodHandle shmat = linker.downcallHandle(linker.defaultLookup().find("shmat").orElseThrow(),
                    FunctionDescriptor.of(ADDRESS, JAVA_INT, ADDRESS, JAVA_INT));
            MemorySegment fifo;
            try {
                fifo = (MemorySegment) shmat.invokeExact((int) e.ifaceLong(0), MemorySegment.NULL, 0);
            } catch (Throwable t) {
                throw new IOException("shmat of sysv FIFO " + e.ifaceLong(0) + " failed", t);
            }
            if (fifo.address() == -1L) {
                throw new IOException("shmat of sysv FIFO " + e.ifaceLong(0) + " failed");
            }
            reserveSlot(fifo.reinterpret(64));
            jammed++;
        }
        for (UcpWorkerAddress.Entry e : metadata.address().entriesOf(UcpWorkerAddress.POSIX)) {
            long segId = e.ifaceLong(0);
            if ((segId & (PosixSegmentId.PROCFS | PosixSegmentId.SHM_OPEN)) == 0) {
                continue;
            }
            try (FileChannel ch = FileChannel.open(PosixSegmentId.file(segId, "/dev/shm"), StandardOpenOption.READ,
                    StandardOpenOption.WRITE)) {
                reserveSlot(ch.map(FileChannel.MapMode.READ_WRITE, 0, 64, Arena.global()));
            }
            jammed++;
        }
        return jammed;
    }

    /** Advances the FIFO head by one, as a sender does before it writes its message. */
    private static void reserveSlot(MemorySegment control) {
        while (true) {
            long head = (long) LONG.getVolatile(control, 0L);
            if (LONG.compareAndSet(control, 0L, head, (head + 1) & ~EVENT_ARMED)) {
                return;
            }
        }
    }
}
