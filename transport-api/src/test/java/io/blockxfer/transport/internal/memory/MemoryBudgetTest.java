package io.blockxfer.transport.internal.memory;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.transport.InsufficientMemoryException;
import org.junit.jupiter.api.Test;

/** A region the host cannot hold is refused with the size asked for and what the host has. */
class MemoryBudgetTest {

    private static final long GIB = 1L << 30;

    /** 24 GiB available, no swap, no commit or cgroup limit. */
    private static final HostMemory HOST = new HostMemory(24 * GIB, 0, 0, Long.MAX_VALUE, Long.MAX_VALUE);

    @Test
    void aRegionLargerThanTheMachineIsRefusedWithBothFigures() {
        var e = assertThrows(InsufficientMemoryException.class, () -> MemoryBudget.check(1L << 40, HOST));
        assertTrue(e.getMessage().contains("1024.0 GiB") && e.getMessage().contains("24.0 GiB of memory available"),
                e.getMessage());
        assertEquals(1L << 40, e.requestedBytes());
        assertEquals(24 * GIB, e.availableBytes());
        assertDoesNotThrow(() -> MemoryBudget.check(20 * GIB, HOST));
    }

    @Test
    void swapCountsAndTheReserveIsKept() {
        var withSwap = new HostMemory(2 * GIB, 4 * GIB, 0, Long.MAX_VALUE, Long.MAX_VALUE);
        assertDoesNotThrow(() -> MemoryBudget.check(5 * GIB, withSwap));
        var e = assertThrows(InsufficientMemoryException.class, () -> MemoryBudget.check(6 * GIB, withSwap));
        assertEquals(6 * GIB, e.availableBytes());
        assertThrows(InsufficientMemoryException.class,
                () -> MemoryBudget.check(6 * GIB - MemoryBudget.RESERVE_BYTES + 1, withSwap));
    }

    @Test
    void overcommitAndCgroupLimitsCount() {
        var strict = new HostMemory(24 * GIB, 0, 2, 2 * GIB, Long.MAX_VALUE);
        var e = assertThrows(InsufficientMemoryException.class, () -> MemoryBudget.check(4 * GIB, strict));
        assertTrue(e.getMessage().contains("overcommit"), e.getMessage());
        assertEquals(2 * GIB, e.availableBytes());
        var heuristic = new HostMemory(24 * GIB, 0, 0, 2 * GIB, Long.MAX_VALUE);
        assertDoesNotThrow(() -> MemoryBudget.check(4 * GIB, heuristic));
        var cgroup = new HostMemory(24 * GIB, 0, 0, Long.MAX_VALUE, GIB);
        var c = assertThrows(InsufficientMemoryException.class, () -> MemoryBudget.check(2 * GIB, cgroup));
        assertTrue(c.getMessage().contains("memory.max"), c.getMessage());
        assertEquals(GIB, c.availableBytes());
    }

    @Test
    void aHostWithoutFiguresLimitsNothing() {
        assertDoesNotThrow(() -> MemoryBudget.check(Long.MAX_VALUE, HostMemory.UNLIMITED));
    }

    @Test
    void thisHostRefusesATerabyte() {
        var e = assertThrows(InsufficientMemoryException.class, () -> MemoryBudget.check(1L << 40));
        assertTrue(e.availableBytes() < 1L << 40, e.getMessage());
    }
}
