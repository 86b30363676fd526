package io.blockxfer.tck.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class UcxShmFilesTest {

    private static final int SIZE = 8192;
    private Path file;

    @BeforeEach
    void aSegmentFile() throws IOException {
        assumeTrue(Files.isDirectory(Path.of("/dev/shm")) && Files.isDirectory(Path.of("/proc/self")),
                "this system has no /dev/shm or /proc");
        file = Path.of(UcxShmFiles.PREFIX + "tcktest_" + ProcessHandle.current().pid() + "_" + System.nanoTime());
        Files.write(file, new byte[SIZE]);
    }

    @AfterEach
    void removeIt() throws IOException {
        if (file != null) {
            Files.deleteIfExists(file);
        }
    }

    private static ChildJvm mapping(Path file) {
        ChildJvm child = ChildJvm.builder(MappingChild.class).args(file.toString()).stderrTo(line -> { }).start();
        assertEquals("READY", child.nextLine(Duration.ofSeconds(30)));
        return child;
    }

    @Test
    void aKilledChildsFileIsKeptWhileItLivesAndRemovedOnceItHasEnded() {
        ChildJvm child = mapping(file);
        try {
            assertEquals(Set.of(file), UcxShmFiles.mappedBy(child.pid()));
            assertTrue(UcxShmFiles.mappedByAnotherProcess(file));
            assertEquals(new UcxShmFiles.Sweep(1, SIZE, 0, List.of(file)), UcxShmFiles.sweep(Set.of(file)),
                    "a file a live process maps is kept");
            assertTrue(Files.exists(file));
            child.kill();
        } finally {
            child.close();
        }
        assertEquals(Set.of(), UcxShmFiles.mappedBy(child.pid()), "an ended process maps nothing");
        assertFalse(UcxShmFiles.mappedByAnotherProcess(file));
        assertEquals(new UcxShmFiles.Sweep(1, SIZE, 1, List.of()), UcxShmFiles.sweep(Set.of(file)));
        assertFalse(Files.exists(file), "removed once nobody maps it");
        assertEquals(UcxShmFiles.Sweep.NONE, UcxShmFiles.sweep(Set.of(file)), "a file already gone is not found");
    }

    @Test
    void aFileNoProcessMapsIsRemovedAndTheSweepsAddUp() {
        UcxShmFiles.Sweep first = UcxShmFiles.sweep(List.of(file, file));
        assertEquals(new UcxShmFiles.Sweep(1, SIZE, 1, List.of()), first, "each file is counted once");
        assertFalse(Files.exists(file));
        UcxShmFiles.Sweep kept = new UcxShmFiles.Sweep(2, 10, 1, List.of(Path.of("/dev/shm/x")));
        assertEquals(new UcxShmFiles.Sweep(3, SIZE + 10, 2, List.of(Path.of("/dev/shm/x"))), first.plus(kept));
    }
}
