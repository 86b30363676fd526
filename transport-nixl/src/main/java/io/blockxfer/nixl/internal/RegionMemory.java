package io.blockxfer.nixl.internal;

import io.blockxfer.transport.TransportException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;

/**
 * The memory of a region the backend allocates: an anonymous private mapping of this process,
 * zeroed, unmapped when its arena closes. Asked for huge pages and at least one huge page long, it
 * starts on a {@value #HUGE_PAGE}-byte boundary and is advised to the kernel's transparent huge
 * pages ({@code madvise(MADV_HUGEPAGE)}) before anything touches it, so every page fault, the
 * initiator's and the one a peer's copy takes in this process, maps 2 MiB at once where the kernel
 * has them. NIXL's UCX copies between processes with {@code process_vm_writev} and
 * {@code process_vm_readv}, which walk the pages of both sides: on huge pages 64 x 256 KiB writes
 * moved a fifth to a half faster ({@code scripts/bench-nixl}; figures in the CLI's README). Where
 * the kernel's huge pages are off ({@code never}) or it has none free, the pages are ordinary ones
 * and nothing else changes.
 *
 * <p><b>Thread safety:</b> stateless.
 */
@SuppressWarnings("restricted")
public final class RegionMemory {

    /** The size of a transparent huge page on x86-64 and AArch64 with 4 KiB base pages. */
    public static final long HUGE_PAGE = 2L << 20;
    private static final long PAGE = 4096;

    private RegionMemory() {
    }

    /**
     * Maps {@code bytes} of zeroed memory that {@code arena} unmaps when it closes.
     *
     * @param hugePages whether to advise transparent huge pages (only where {@code bytes} spans one)
     * @throws TransportException if the kernel refuses the mapping
     */
    public static MemorySegment map(Arena arena, long bytes, boolean hugePages) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("region bytes must be positive: " + bytes);
        }
        boolean huge = hugePages && bytes >= HUGE_PAGE;
        long align = huge ? HUGE_PAGE : PAGE;
        long span = roundUp(bytes, align);
        // room to move the start to the next boundary; the slack is address space, never touched
        long length = span + (huge ? HUGE_PAGE : 0);
        long base = NixlNative.mapAnonymous(length);
        if (base == -1) {
            throw new TransportException("mapping " + bytes + " bytes of region memory failed (mmap)");
        }
        long start = roundUp(base, align);
        if (huge) {
            // a kernel without transparent huge pages refuses the advice: the pages stay ordinary
            NixlNative.adviseHugePages(start, span);
        }
        return MemorySegment.ofAddress(start).reinterpret(bytes, arena, unused -> NixlNative.unmap(base, length));
    }

    /**
     * How many bytes of the mappings that overlap {@code [address, address + length)} are in
     * transparent huge pages now (their {@code AnonHugePages} in {@code /proc/self/smaps}, at most
     * {@code length}); 0 where no mapping overlaps it.
     *
     * @throws IOException if {@code /proc/self/smaps} cannot be read
     */
    public static long hugePageBytes(long address, long length) throws IOException {
        long end = address + length;
        long total = 0;
        boolean overlaps = false;
        for (String line : Files.readAllLines(Path.of("/proc/self/smaps"))) {
            int dash = line.indexOf('-');
            int space = line.indexOf(' ');
            if (dash > 0 && space > dash && isHex(line, 0, dash)) {
                long from = HexFormat.fromHexDigitsToLong(line, 0, dash);
                long to = HexFormat.fromHexDigitsToLong(line, dash + 1, space);
                overlaps = Long.compareUnsigned(from, end) < 0 && Long.compareUnsigned(to, address) > 0;
            } else if (overlaps && line.startsWith("AnonHugePages:")) {
                String kb = line.substring("AnonHugePages:".length()).replace("kB", "").trim();
                total += Long.parseLong(kb) * 1024;
            }
        }
        return Math.min(total, length);
    }

    /**
     * The kernel's transparent huge page mode: {@code always}, {@code madvise} or {@code never} (the
     * bracketed word of {@code /sys/kernel/mm/transparent_hugepage/enabled}), or {@code absent} where
     * the kernel has no such setting.
     */
    public static String transparentHugePageMode() {
        try {
            String line = Files.readString(Path.of("/sys/kernel/mm/transparent_hugepage/enabled"));
            int open = line.indexOf('[');
            int close = line.indexOf(']');
            return open >= 0 && close > open ? line.substring(open + 1, close) : "absent";
        } catch (IOException e) {
            return "absent";
        }
    }

    private static boolean isHex(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            if (Character.digit(s.charAt(i), 16) < 0) {
                return false;
            }
        }
        return true;
    }

    private static long roundUp(long value, long align) {
        return (value + align - 1) & -align;
    }
}
