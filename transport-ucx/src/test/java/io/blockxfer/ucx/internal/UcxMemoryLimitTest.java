package io.blockxfer.ucx.internal;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.transport.InsufficientMemoryException;
import io.blockxfer.transport.internal.memory.HostMemory;
import io.blockxfer.ucx.AvailabilityProbe;
import io.blockxfer.ucx.PosixRegionHolder;
import io.blockxfer.ucx.UcxTestSupport;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Memory that cannot be had is refused before UCX maps anything, and the posix shared-memory files
 * of a UCX process killed with SIGKILL are gone after the next start of a UCX process (while those
 * of a live process stay).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class UcxMemoryLimitTest {

    private static final long GIB = 1L << 30;

    /** A host with 24 GiB available, no swap, no commit or cgroup limit. */
    private static final HostMemory MACHINE = new HostMemory(24 * GIB, 0, 0, Long.MAX_VALUE, Long.MAX_VALUE);

    /** {@link #MACHINE} with {@code shmFree} bytes of /dev/shm and SysV limits as given. */
    private static UcxMemoryBudget.Snapshot host(long shmFree, long shmmax, long shmallPages) {
        return new UcxMemoryBudget.Snapshot(MACHINE, shmFree, 12 * GIB, shmmax, shmallPages, 0);
    }

    @Test
    void aContainersSmallDevShmWithoutSysvTakesWhatFitsAndKeepsAnEighthFree() {
        // a container: /dev/shm of 64 MiB, all free, and no SysV shared memory (kernel.shmmax 0)
        var container = new UcxMemoryBudget.Snapshot(MACHINE, 64L << 20, 64L << 20, 0, 0, 0);
        assertDoesNotThrow(() -> UcxMemoryBudget.check(8L << 20, null, container));
        assertDoesNotThrow(() -> UcxMemoryBudget.check(56L << 20, null, container));
        var e = assertThrows(InsufficientMemoryException.class, () -> UcxMemoryBudget.check(57L << 20, null,
                container));
        assertTrue(e.getMessage().contains("/dev/shm"), e.getMessage());
    }

    @Test
    void aRegionLargerThanTheMachineIsRefusedWithTheApiException() {
        var e = assertThrows(InsufficientMemoryException.class, () -> UcxMemoryBudget.check(1L << 40, null,
                host(24 * GIB, Long.MAX_VALUE, Long.MAX_VALUE)));
        assertTrue(e.getMessage().contains("1024.0 GiB") && e.getMessage().contains("24.0 GiB of memory available"),
                e.getMessage());
        assertEquals(1L << 40, e.requestedBytes());
        assertDoesNotThrow(() -> UcxMemoryBudget.check(20 * GIB, null, host(24 * GIB, Long.MAX_VALUE, Long.MAX_VALUE)));
    }

    @Test
    void devShmMattersOnlyWhenUcxWouldUseAPosixSegment() {
        // SysV takes it: a small /dev/shm (a container's 64 MiB) does not matter
        var smallShm = host(64L << 20, Long.MAX_VALUE, Long.MAX_VALUE);
        assertDoesNotThrow(() -> UcxMemoryBudget.check(4 * GIB, null, smallShm));
        // SysV cannot (shmmax 1 GiB): UCX goes on to posix, and /dev/shm cannot hold it
        var noSysv = host(64L << 20, GIB, Long.MAX_VALUE);
        var e = assertThrows(InsufficientMemoryException.class, () -> UcxMemoryBudget.check(4 * GIB, null, noSysv));
        assertTrue(e.getMessage().contains("/dev/shm") && e.getMessage().contains("shmmax"), e.getMessage());
        assertEquals(64L << 20, e.availableBytes());
        // posix first by configuration
        assertThrows(InsufficientMemoryException.class, () -> UcxMemoryBudget.check(GIB, "md:posix", smallShm));
        // anonymous memory after SysV: no /dev/shm needed
        assertDoesNotThrow(() -> UcxMemoryBudget.check(4 * GIB, "md:sysv,mmap", noSysv));
    }

    /**
     * A terabyte region on this host, in a child JVM (if the refusal failed, UCX would fill the
     * machine). The child's UCX writes its posix segments into a directory of its own
     * ({@code UCX_POSIX_DIR}) instead of /dev/shm, so that what it leaves there is its own: in
     * /dev/shm, a file that a test JVM beside this one leaves meanwhile (a UCX process it killed)
     * could not be told from the child's. The child shows that its UCX honours the directory: once
     * refused, it opens a small posix region, whose file is listed there while it is open.
     */
    @Test
    void aTerabyteRegionIsRefusedOnThisHostWithoutCreatingASharedMemoryFile() throws Exception {
        UcxTestSupport.requireUcx();
        Path dir = Files.createTempDirectory("ucx-posix-dir");
        try {
            ProcessBuilder pb = new ProcessBuilder(UcxTestSupport.javaCommand(TerabyteOpen.class.getName(), List.of(),
                    List.of(dir.toString()))).redirectErrorStream(true);
            pb.environment().put("UCX_POSIX_DIR", dir.toString());
            Process p = pb.start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS));
            assertEquals(0, p.exitValue(), out);
            assertTrue(out.contains("REFUSED " + InsufficientMemoryException.class.getName()), out);
            assertTrue(out.contains("FILES AFTER THE REFUSAL: []"), "the refused allocation created files: " + out);
            assertTrue(out.contains("FILES OF A SMALL POSIX REGION: [") && !out.contains("FILES OF A SMALL POSIX REGION: []"),
                    "the child's UCX did not write its posix segment into UCX_POSIX_DIR: " + out);
            assertEquals(Set.of(), filesIn(dir), "the child left files in its UCX_POSIX_DIR: " + out);
        } finally {
            try (Stream<Path> left = Files.list(dir)) {
                for (Path f : left.toList()) {
                    Files.deleteIfExists(f);
                }
            }
            Files.deleteIfExists(dir);
        }
    }

    /**
     * Opens a 1 TiB UCX-allocated region and prints how it was refused and the files in the
     * directory given (UCX_POSIX_DIR) then; then opens a small region in a posix segment kept
     * linked, and prints the files there while it is open.
     */
    public static final class TerabyteOpen {
        private TerabyteOpen() {
        }

        /** Prints {@code REFUSED <exception class>: <message>} or {@code OPENED}, then the two listings. */
        public static void main(String[] args) throws IOException {
            Path dir = Path.of(args[0]);
            try (var t = new io.blockxfer.ucx.UcxProvider().open(io.blockxfer.transport.TransportConfig.builder(
                    io.blockxfer.transport.RegionSpec.allocate(1 << 20, 1 << 20)).build())) {
                System.out.println("OPENED " + t.region());
            } catch (RuntimeException e) {
                System.out.println("REFUSED " + e.getClass().getName() + ": " + e.getMessage());
            }
            System.out.println("FILES AFTER THE REFUSAL: " + filesIn(dir));
            try (var t = new io.blockxfer.ucx.UcxProvider().open(io.blockxfer.transport.TransportConfig.builder(
                    io.blockxfer.transport.RegionSpec.allocate(64, 64 * 1024))
                    .option(io.blockxfer.ucx.UcxOptions.CONFIG_PREFIX + "ALLOC_PRIO", "md:posix")
                    .option(io.blockxfer.ucx.UcxOptions.CONFIG_PREFIX + "POSIX_USE_PROC_LINK", "n").build())) {
                System.out.println("FILES OF A SMALL POSIX REGION: " + filesIn(dir) + " (" + t.region() + ")");
            }
        }
    }

    /** The names of the files in {@code dir}, sorted. */
    static Set<Path> filesIn(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return new TreeSet<>(s.map(Path::getFileName).toList());
        }
    }

    private static Process holder() throws IOException {
        return new ProcessBuilder(UcxTestSupport.javaCommand(PosixRegionHolder.class.getName(), List.of(), List.of()))
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
    }

    private static void awaitReady(Process p) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null && !line.startsWith("READY")) {
            // skip
        }
        assertTrue(line != null, "the holder ended before its region was ready");
    }

    /** The posix files that process {@code pid} maps. */
    private static Set<Path> mappedBy(long pid) throws IOException {
        Set<Path> mapped = new HashSet<>();
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "maps"))) {
            int at = line.indexOf("/dev/shm/" + PosixSegmentId.FILE_PREFIX);
            if (at >= 0 && !line.endsWith("(deleted)")) {
                mapped.add(Path.of(line.substring(at).trim()));
            }
        }
        return mapped;
    }

    @Test
    void theNextUcxStartRemovesWhatAKilledProcessLeftButNotWhatALiveOneHolds() throws Exception {
        UcxTestSupport.requireUcx();
        Process killed = holder();
        Process alive = holder();
        try {
            awaitReady(killed);
            awaitReady(alive);
            Set<Path> killedFiles = mappedBy(killed.pid());
            Set<Path> aliveFiles = mappedBy(alive.pid());
            assertFalse(killedFiles.isEmpty(), "the holder maps no posix file");
            assertFalse(aliveFiles.isEmpty());
            killed.destroyForcibly(); // SIGKILL
            assertTrue(killed.waitFor(30, TimeUnit.SECONDS));
            for (Path f : killedFiles) {
                assertTrue(Files.exists(f), "UCX itself removed " + f + "; nothing to test");
            }
            // age every file past the sweep's quiet time, the live holder's too: only liveness protects it
            FileTime old = FileTime.fromMillis(System.currentTimeMillis() - 60_000);
            for (Path f : killedFiles) {
                Files.setLastModifiedTime(f, old);
            }
            for (Path f : aliveFiles) {
                Files.setLastModifiedTime(f, old);
            }
            Process next = new ProcessBuilder(UcxTestSupport.javaCommand(AvailabilityProbe.class.getName(), List.of(),
                    List.of())).redirectErrorStream(true).start();
            String out = new String(next.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(next.waitFor(60, TimeUnit.SECONDS));
            assertTrue(out.contains("AVAILABLE true"), out);
            for (Path f : killedFiles) {
                assertFalse(Files.exists(f), f + " of the killed process outlived the next UCX start");
            }
            for (Path f : aliveFiles) {
                assertTrue(Files.exists(f), f + " of a live process was removed");
            }
        } finally {
            killed.destroyForcibly();
            alive.destroyForcibly();
            alive.waitFor(30, TimeUnit.SECONDS);
            // what the live holder leaves now that it is killed too
            ShmSweeper.sweep(Path.of("/dev/shm"), Path.of("/proc"), System.currentTimeMillis() + 60_000);
        }
    }
}
