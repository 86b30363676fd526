package io.blockxfer.ucx.internal;

import java.nio.file.Path;

/**
 * The segment id of UCX 1.18's posix shared memory ({@code uct_posix} in
 * {@code src/uct/sm/mm/posix/mm_posix.c}): flag bits over a 60-bit id that is either a random
 * {@code mmid} (the file {@code /dev/shm/ucx_shm_posix_<mmid hex>}, or the same name in a
 * configured directory) or, in proc-link mode (UCX's default), a pid and a file descriptor of the
 * process that holds the already unlinked file ({@code /proc/<pid>/fd/<fd>}).
 *
 * <p><b>Thread safety:</b> stateless.
 */
final class PosixSegmentId {

    /** {@code UCT_POSIX_SEG_FLAG_PROCFS}: the id is a pid and a file descriptor. */
    static final long PROCFS = 1L << 63;
    /** {@code UCT_POSIX_SEG_FLAG_SHM_OPEN}: the file lives in {@code /dev/shm}. */
    static final long SHM_OPEN = 1L << 62;
    /** {@code UCT_POSIX_SEG_FLAG_HUGETLB}: mapped with huge pages. */
    static final long HUGETLB = 1L << 61;
    /** {@code UCT_POSIX_SEG_FLAG_PID_NS}: a pid namespace id follows the id. */
    static final long PID_NS = 1L << 60;
    /** The id without its flags. */
    static final long MMID_MASK = ~(PROCFS | SHM_OPEN | HUGETLB | PID_NS);
    /** The name prefix of UCX's posix segment files. */
    static final String FILE_PREFIX = "ucx_shm_posix_";

    private PosixSegmentId() {
    }

    /** The pid of a proc-link id. */
    static long pid(long segId) {
        return segId & MMID_MASK & ((1L << 30) - 1);
    }

    /** The file descriptor of a proc-link id. */
    static long fd(long segId) {
        return (segId & MMID_MASK) >>> 30;
    }

    /**
     * The file UCX opens for {@code segId}: {@code /proc/<pid>/fd/<fd>}, or the named file in
     * {@code /dev/shm} or in {@code dir}.
     */
    static Path file(long segId, String dir) {
        if ((segId & PROCFS) != 0) {
            return Path.of("/proc", Long.toString(pid(segId)), "fd", Long.toString(fd(segId)));
        }
        String name = FILE_PREFIX + Long.toHexString(segId & MMID_MASK);
        return (segId & SHM_OPEN) != 0 ? Path.of("/dev/shm", name) : Path.of(dir, name);
    }
}
