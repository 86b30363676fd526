package io.blockxfer.ucx.internal;

import io.blockxfer.transport.IncompatiblePeerException;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.PeerRegistrationException;
import io.blockxfer.transport.TransportException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Checks a peer's advertised region against what the kernel says about the memory UCX will map to
 * reach it, before UCX maps anything. On one host UCX reaches a peer's UCX-allocated region by
 * attaching the segment its remote key names and copying to {@code attached + (address - owner
 * address)}, with no length (sysv), or by mapping as many bytes of a file as the key says (posix);
 * and it maps the peer's FIFO segment as large as its own. A key that names a wrong or smaller
 * segment, or a region larger than the segment, would make puts land outside the peer's memory,
 * in this process (past the attached segment) or in another.
 *
 * <p>So, for every shared-memory transport of the peer that UCX will use (same host):
 * <ul>
 *   <li>each segment its address and key name exists ({@code shmctl}, {@code stat});</li>
 *   <li>they were all created by one process (the peer), and a data segment is none of its FIFOs;</li>
 *   <li>the region's segment is mapped by that process at the owner address the key names
 *       ({@code /proc/<pid>/maps}), so the key is its region's and not another of its segments;</li>
 *   <li>a FIFO segment is exactly as large as this worker's own (UCX maps a peer's FIFO with its
 *       own FIFO geometry);</li>
 *   <li>the region ({@code base}, {@code numBlocks * blockLength}) lies inside the segment, from
 *       the owner address the key names;</li>
 *   <li>a segment this process created is only this transport's own region.</li>
 * </ul>
 * A peer address that leads to a worker of this process (its self id, a FIFO segment, its TCP
 * interface, or the listener it is connected through; see {@link LocalWorkers}) is that
 * transport: its region must lie inside that
 * transport's region, since UCX's self transport and its software-emulated RMA copy to the
 * remote address as an address of this process. All shared-memory transports of one address must
 * name one host.
 *
 * <p>What cannot be checked (the peer's own memory behind TCP or software-emulated RMA, a
 * consistent lie naming another process's segments of the right sizes) is listed in the trust
 * model (docs/trust-model.md).
 *
 * <p><b>Thread safety:</b> stateless.
 */
final class PeerMemoryCheck {

    private PeerMemoryCheck() {
    }

    /**
     * Checks {@code peer}, whose metadata is {@code metadata}, against this transport.
     *
     * @throws IncompatiblePeerException naming the field and the fact that contradicts it
     */
    static void check(String peerId, PeerDescriptor peer, UcxMetadata metadata, LocalIdentity local) {
        check(peerId, peer, metadata, local, null);
    }

    /**
     * Checks {@code peer}, whose metadata is {@code metadata}, against this transport, where the
     * peer's endpoints connect {@code via} a listener (null: by its worker address).
     *
     * @throws IncompatiblePeerException naming the field and the fact that contradicts it
     */
    static void check(String peerId, PeerDescriptor peer, UcxMetadata metadata, LocalIdentity local,
            @Nullable InetSocketAddress via) {
        new PeerMemoryCheck.Run(peerId, peer, metadata, local, via).check();
    }

    private static final class Run {
        private final String peerId;
        private final long base;
        private final long size;
        private final UcpWorkerAddress address;
        private final PackedRkey rkey;
        private final LocalIdentity local;
        private final @Nullable InetSocketAddress via;
        private final List<Long> owners = new ArrayList<>();
        private final List<String> ownerSources = new ArrayList<>();
        private final List<Long> fifoSysv = new ArrayList<>();
        private final List<Long> fifoPosix = new ArrayList<>();

        Run(String peerId, PeerDescriptor peer, UcxMetadata metadata, LocalIdentity local,
                @Nullable InetSocketAddress via) {
            this.via = via;
            this.peerId = peerId;
            this.base = peer.baseAddress();
            this.size = (long) peer.numBlocks() * peer.blockLength();
            this.address = metadata.address();
            this.rkey = metadata.packedRkey();
            this.local = local;
        }

        /**
         * A lookup failed: the thing named is not there or not this user's (the peer is wrong), or
         * this process ran out of a resource (file descriptors, memory), which is no fault of the
         * peer and says so.
         */
        private TransportException inspectionFailed(String field, String what, Exception e) {
            if (e instanceof NoSuchFileException || e instanceof AccessDeniedException || e instanceof SecurityException
                    || e instanceof NotDirectoryException) {
                return refuse(field, what + ": " + e);
            }
            return new PeerRegistrationException("registering peer '" + peerId + "' failed: checking its " + field
                    + " (it " + what + ") failed in this process, not because of the peer: " + e, e);
        }

        private IncompatiblePeerException refuse(String field, String why) {
            return new IncompatiblePeerException("descriptor of peer '" + peerId + "': " + field + " " + why);
        }

        void check() {
            byte[] smDevice = null;
            for (UcpWorkerAddress.Entry e : address.entries()) {
                int tl = e.tlChecksum();
                if (tl == UcpWorkerAddress.SYSV || tl == UcpWorkerAddress.POSIX || tl == UcpWorkerAddress.CMA) {
                    if (smDevice == null) {
                        smDevice = e.device();
                    } else if (!java.util.Arrays.equals(smDevice, e.device())) {
                        throw refuse("worker address", "gives its shared-memory transports different hosts");
                    }
                }
            }
            for (UcpWorkerAddress.Entry e : address.entries()) {
                int tl = e.tlChecksum();
                if (tl == UcpWorkerAddress.CMA && local.sameHost(e)) {
                    owner(UcpWorkerAddress.le32(e.iface(), 0) & 0x7fff_ffffL, "the cma address");
                } else if (tl == UcpWorkerAddress.SYSV && local.hasSysv && local.sameHost(e)) {
                    long fifo = e.ifaceLong(0);
                    UcxLibrary.SysvSegment s = sysv(fifo, "worker address (sysv FIFO segment)");
                    owner(s.creatorPid(), "the sysv FIFO segment " + fifo);
                    if (local.sysvFifoBytes > 0 && s.size() != local.sysvFifoBytes) {
                        throw refuse("worker address", "names sysv FIFO segment " + fifo + " of " + s.size()
                                + " bytes; UCX maps a peer's FIFO as large as its own, " + local.sysvFifoBytes);
                    }
                    fifoSysv.add(fifo);
                } else if (tl == UcpWorkerAddress.POSIX && local.hasPosix && local.sameHost(e)) {
                    long fifo = e.ifaceLong(0);
                    long bytes = posixBytes(fifo, e.iface(), 8, "worker address (posix FIFO segment)");
                    if ((fifo & PosixSegmentId.PROCFS) != 0) {
                        owner(PosixSegmentId.pid(fifo), "the posix FIFO segment");
                    }
                    if (local.posixFifoBytes > 0 && bytes != local.posixFifoBytes) {
                        throw refuse("worker address", "names posix FIFO segment 0x" + Long.toHexString(fifo) + " of "
                                + bytes + " bytes; UCX maps a peer's FIFO as large as its own, " + local.posixFifoBytes);
                    }
                    fifoPosix.add(fifo);
                }
            }
            checkLocalWorker();
            for (int md = 0; md < 64; md++) {
                if ((rkey.mdMap() & (1L << md)) == 0) {
                    continue;
                }
                int mdIndex = md;
                boolean sysv = local.hasSysv && address.entries().stream().anyMatch(en -> en.mdIndex() == mdIndex
                        && en.tlChecksum() == UcpWorkerAddress.SYSV && local.sameHost(en));
                boolean posix = local.hasPosix && address.entries().stream().anyMatch(en -> en.mdIndex() == mdIndex
                        && en.tlChecksum() == UcpWorkerAddress.POSIX && local.sameHost(en));
                byte[] key = rkey.key(md);
                if (sysv && key.length == PackedRkey.SYSV_KEY_BYTES) {
                    checkSysvRegion(md, key);
                } else if (posix && key.length >= PackedRkey.POSIX_KEY_BYTES) {
                    checkPosixRegion(md, key);
                }
            }
            if (owners.stream().distinct().count() > 1) {
                throw refuse("metadata", "names shared memory of different processes: " + describeOwners());
            }
        }

        /**
         * A peer address that leads to a worker of this process is that transport: its region must
         * be inside that transport's region, and nothing of it may lead elsewhere.
         */
        private void checkLocalWorker() {
            Set<LocalWorkers.Worker> reached = new LinkedHashSet<>(LocalWorkers.reachedBy(address));
            if (via != null) {
                reached.addAll(LocalWorkers.reachedByListener(via));
            }
            boolean ownPid = owners.contains(local.pid);
            if (reached.isEmpty() && !ownPid) {
                return;
            }
            if (reached.size() != 1) {
                throw refuse("worker address", reached.isEmpty()
                        ? "names shared memory of this process but no worker of an open transport"
                        : "leads to " + reached.size() + " different workers of this process");
            }
            if (owners.stream().anyMatch(p -> p != local.pid)) {
                throw refuse("worker address", "leads to a worker of this process and to another process ("
                        + describeOwners() + ")");
            }
            LocalWorkers.Worker w = reached.iterator().next();
            requireInside("region", w.base(), w.bytes(), "the region of the transport of this process that the"
                    + " worker address leads to");
        }

        private void checkSysvRegion(int md, byte[] key) {
            long shmid = UcpWorkerAddress.le32(key, 0);
            long ownerAddress = UcpWorkerAddress.le64(key, 4);
            String field = "packed rkey (memory domain " + md + ", sysv)";
            if (fifoSysv.contains(shmid)) {
                throw refuse(field, "names the peer's FIFO segment " + shmid + " as its region");
            }
            UcxLibrary.SysvSegment s = sysv(shmid, field);
            owner(s.creatorPid(), "the sysv region segment " + shmid);
            if (s.creatorPid() == local.pid) {
                requireOwnRegion(field, LocalWorkers.sysv(shmid), ownerAddress);
            } else {
                requireMapped(field, s.creatorPid(), shmid, ownerAddress, s.size(), true, "SysV segment " + shmid);
            }
            requireInside(field, ownerAddress, s.size(), "the " + s.size() + "-byte SysV segment " + shmid
                    + " it names");
        }

        private void checkPosixRegion(int md, byte[] key) {
            long segId = UcpWorkerAddress.le64(key, 0);
            long ownerAddress = UcpWorkerAddress.le64(key, 8);
            long length = UcpWorkerAddress.le64(key, 16);
            String field = "packed rkey (memory domain " + md + ", posix)";
            if (fifoPosix.contains(segId)) {
                throw refuse(field, "names the peer's FIFO segment as its region");
            }
            long bytes = posixBytes(segId, key, PackedRkey.POSIX_KEY_BYTES, field);
            if ((segId & PosixSegmentId.PROCFS) != 0) {
                owner(PosixSegmentId.pid(segId), "the posix region segment");
                long pid = PosixSegmentId.pid(segId);
                if (pid == local.pid) {
                    requireOwnRegion(field, LocalWorkers.posix(segId), ownerAddress);
                } else {
                    requireMapped(field, pid, posixInode(segId, field), ownerAddress, length, false,
                            "posix segment " + PosixSegmentId.file(segId, "/dev/shm"));
                }
            }
            if (length <= 0 || length > bytes) {
                throw refuse(field, "maps " + length + " bytes of a " + bytes + "-byte posix segment");
            }
            requireInside(field, ownerAddress, length, "the " + length + "-byte posix segment it names");
        }

        /** The segment is mapped by {@code pid} at {@code address}, at least {@code bytes} long. */
        private void requireMapped(String field, long pid, long inode, long address, long bytes, boolean sysv,
                String what) {
            long mapped;
            try {
                mapped = OwnerMappings.mappedLength(pid, inode, address, sysv);
            } catch (IOException | SecurityException e) {
                throw inspectionFailed(field, "names " + what + " of process " + pid + ", whose mappings cannot be"
                        + " read", e);
            }
            if (mapped < bytes) {
                throw refuse(field, "names " + what + " at 0x" + Long.toHexString(address) + ", but its owner (pid "
                        + pid + ") " + (mapped < 0 ? "does not map it there" : "maps only " + mapped + " bytes of it"));
            }
        }

        private long posixInode(long segId, String field) {
            Path file = PosixSegmentId.file(segId, "/dev/shm");
            try {
                return ((Number) Files.getAttribute(file, "unix:ino")).longValue();
            } catch (IOException | RuntimeException e) {
                throw inspectionFailed(field, "names posix segment " + file + ", which cannot be inspected", e);
            }
        }

        /** A segment of this process: only the live region of a transport of this process, at its true base. */
        private void requireOwnRegion(String field, String segment, long ownerAddress) {
            LocalWorkers.Worker r = LocalWorkers.bySegment(segment);
            if (r == null) {
                throw refuse(field, "names " + segment + " of this process, which is no transport's region");
            }
            if (r.base() != ownerAddress) {
                throw refuse(field, "names " + segment + " of this process at 0x" + Long.toHexString(ownerAddress)
                        + "; that region is at 0x" + Long.toHexString(r.base()));
            }
            requireInside(field, r.base(), r.bytes(), "the " + r.bytes() + "-byte region of a transport of this"
                    + " process");
        }

        private void requireInside(String field, long start, long bytes, String what) {
            if (base < start || size > bytes || base - start > bytes - size) {
                throw refuse(field, "does not cover the advertised region of " + size + " bytes at 0x"
                        + Long.toHexString(base) + ": it is " + what + " at 0x" + Long.toHexString(start));
            }
        }

        private UcxLibrary.SysvSegment sysv(long shmid, String field) {
            if (shmid < 0 || shmid > Integer.MAX_VALUE) {
                throw refuse(field, "names SysV segment id " + shmid + ", not a valid id");
            }
            try {
                return UcxLibrary.sysvSegment((int) shmid);
            } catch (IllegalArgumentException e) {
                throw refuse(field, "names SysV segment " + shmid + ", which this host does not have for this user: "
                        + e.getMessage());
            }
        }

        /** The size of the posix segment file {@code segId} names (a directory follows at {@code dirAt}). */
        private long posixBytes(long segId, byte[] holder, int dirAt, String field) {
            String dir = "/dev/shm";
            if ((segId & (PosixSegmentId.PROCFS | PosixSegmentId.SHM_OPEN)) == 0) {
                int end = dirAt;
                while (end < holder.length && holder[end] != 0) {
                    end++;
                }
                dir = new String(holder, dirAt, end - dirAt, java.nio.charset.StandardCharsets.UTF_8);
                if (!dir.startsWith("/") || dir.contains("/../") || dir.endsWith("/..")) {
                    throw refuse(field, "names posix directory '" + dir + "'");
                }
            }
            Path file = PosixSegmentId.file(segId, dir);
            try {
                if (!Files.isRegularFile(file)) {
                    throw refuse(field, "names posix segment " + file + ", which is not a file on this host");
                }
                return Files.size(file);
            } catch (IOException | SecurityException e) {
                throw inspectionFailed(field, "names posix segment " + file + ", which cannot be inspected", e);
            }
        }

        private void owner(long pid, String source) {
            owners.add(pid);
            ownerSources.add(source + " (pid " + pid + ")");
        }

        private String describeOwners() {
            return String.join(", ", ownerSources);
        }
    }
}
