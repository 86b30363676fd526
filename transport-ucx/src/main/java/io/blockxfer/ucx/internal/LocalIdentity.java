package io.blockxfer.ucx.internal;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What this transport is, as a peer's UCX will see it and as {@link PeerMemoryCheck} compares
 * peers against: read from its own worker address and remote key once, at open. Its entry in
 * {@link LocalWorkers}, its host id for shared memory, the sizes of its own shared-memory FIFO segments (what UCX maps of a
 * peer's FIFO, since it sizes the mapping from its own configuration), its pid, and its region.
 *
 * <p><b>Thread safety:</b> immutable.
 */
final class LocalIdentity {

    private static final System.Logger LOG = System.getLogger(LocalIdentity.class.getName());

    /** The shared-memory device address (host id with namespace flag, then namespace), or null. */
    final byte @Nullable [] smDevice;
    final boolean hasSysv;
    final boolean hasPosix;
    /** Bytes of this worker's sysv FIFO segment, or -1 when unknown. */
    final long sysvFifoBytes;
    /** Bytes of this worker's posix FIFO file, or -1 when unknown. */
    final long posixFifoBytes;
    final long pid;
    /** The segment key ({@link LocalWorkers}) of the region when UCX allocated it in shared memory, else null. */
    final @Nullable String regionSegment;
    final long regionBase;
    final long regionBytes;
    /** This worker, as {@link LocalWorkers} lists it. */
    final LocalWorkers.Worker worker;
    /** The device addresses of this worker's tcp loopback interfaces (flags, family, host id). */
    private final List<byte[]> tcpLoopbacks;

    private LocalIdentity(UcpWorkerAddress address, byte @Nullable [] smDevice, boolean hasSysv,
            boolean hasPosix, long sysvFifoBytes, long posixFifoBytes, @Nullable String regionSegment, long regionBase,
            long regionBytes, @Nullable InetSocketAddress listener) {
        this.smDevice = smDevice;
        this.hasSysv = hasSysv;
        this.hasPosix = hasPosix;
        this.sysvFifoBytes = sysvFifoBytes;
        this.posixFifoBytes = posixFifoBytes;
        this.pid = ProcessHandle.current().pid();
        this.regionSegment = regionSegment;
        this.regionBase = regionBase;
        this.regionBytes = regionBytes;
        this.worker = new LocalWorkers.Worker(address, regionBase, regionBytes, regionSegment, listener);
        this.tcpLoopbacks = address.entriesOf(UcpWorkerAddress.TCP).stream().filter(PeerRoute::isLoopback)
                .map(UcpWorkerAddress.Entry::device).toList();
    }

    /** The identity of a worker with address {@code workerAddress} and region key {@code rkey}. */
    static LocalIdentity of(byte[] workerAddress, byte[] rkey, long regionBase, long regionBytes) {
        return of(workerAddress, rkey, regionBase, regionBytes, null);
    }

    /**
     * The identity of a worker with address {@code workerAddress}, region key {@code rkey} and
     * {@code listener} (where it listens for peers, or null).
     */
    static LocalIdentity of(byte[] workerAddress, byte[] rkey, long regionBase, long regionBytes,
            @Nullable InetSocketAddress listener) {
        UcpWorkerAddress address = UcpWorkerAddress.parse(workerAddress);
        byte[] smDevice = null;
        for (UcpWorkerAddress.Entry e : address.entries()) {
            if (e.tlChecksum() == UcpWorkerAddress.SYSV || e.tlChecksum() == UcpWorkerAddress.POSIX
                    || e.tlChecksum() == UcpWorkerAddress.CMA) {
                smDevice = e.device();
                break;
            }
        }
        long sysvFifo = -1;
        for (UcpWorkerAddress.Entry e : address.entriesOf(UcpWorkerAddress.SYSV)) {
            try {
                sysvFifo = UcxLibrary.sysvSegment((int) e.ifaceLong(0)).size();
            } catch (RuntimeException ex) {
                LOG.log(Level.DEBUG, () -> "own sysv FIFO segment cannot be inspected: " + ex.getMessage());
            }
        }
        long posixFifo = -1;
        for (UcpWorkerAddress.Entry e : address.entriesOf(UcpWorkerAddress.POSIX)) {
            try {
                posixFifo = Files.size(PosixSegmentId.file(e.ifaceLong(0), "/dev/shm"));
            } catch (IOException | RuntimeException ex) {
                LOG.log(Level.DEBUG, () -> "own posix FIFO file cannot be inspected: " + ex.getMessage());
            }
        }
        String regionSegment = null;
        PackedRkey key = PackedRkey.parse(rkey, address);
        for (int md = 0; md < 64; md++) {
            if ((key.mdMap() & (1L << md)) == 0) {
                continue;
            }
            byte[] k = key.key(md);
            if (address.transportsOf(md).contains(UcpWorkerAddress.SYSV) && k.length == PackedRkey.SYSV_KEY_BYTES) {
                regionSegment = LocalWorkers.sysv(UcpWorkerAddress.le32(k, 0));
            } else if (address.transportsOf(md).contains(UcpWorkerAddress.POSIX)
                    && k.length >= PackedRkey.POSIX_KEY_BYTES) {
                regionSegment = LocalWorkers.posix(UcpWorkerAddress.le64(k, 0));
            }
        }
        return new LocalIdentity(address, smDevice, !address.entriesOf(UcpWorkerAddress.SYSV).isEmpty(),
                !address.entriesOf(UcpWorkerAddress.POSIX).isEmpty(), sysvFifo, posixFifo, regionSegment, regionBase,
                regionBytes, listener);
    }

    /** Whether {@code entry} (a tcp loopback interface of a peer) is a loopback interface of this host. */
    boolean ownTcpLoopback(UcpWorkerAddress.Entry entry) {
        return tcpLoopbacks.stream().anyMatch(d -> Arrays.equals(d, entry.device()));
    }

    /** Whether {@code entry} (a shared-memory transport of a peer) is on this host, as UCX decides it. */
    boolean sameHost(UcpWorkerAddress.Entry entry) {
        return smDevice != null && Arrays.equals(smDevice, entry.device());
    }
}
