package io.blockxfer.directory.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The first occurrence in full, the rest counted into one summary per interval, quiet intervals close it. */
class LogDigestTest {

    private static final long SECOND = 1_000_000_000L;

    @Test
    void theFirstIsLoggedInFullAndTheRestAreSummedUpPerInterval() {
        LogDigest d = new LogDigest(10 * SECOND);
        assertTrue(d.add(0, "MALFORMED", "/p/j0"), "the first opens an interval");
        for (int i = 1; i <= 4999; i++) {
            assertFalse(d.add(i, i % 100 == 0 ? "BAD_KEY" : "MALFORMED", "/p/j" + i));
        }
        LogDigest.Summary s = d.flush(10 * SECOND);
        assertNotNull(s);
        assertEquals(4999, s.count());
        assertEquals(Map.of("MALFORMED", 4950L, "BAD_KEY", 49L), s.byKind());
        assertEquals("MALFORMED 4,950, BAD_KEY 49", s.kinds());
        assertEquals(List.of("/p/j1", "/p/j2", "/p/j3", "/p/j4", "/p/j5"), s.firstKeys());
        assertEquals("/p/j1, /p/j2, /p/j3, /p/j4, /p/j5, ...", s.keys());
        assertEquals(10, s.seconds());
        assertTrue(d.isOpen(), "a summary opens the next interval");
        assertFalse(d.add(11 * SECOND, "MALFORMED", "/p/x"), "counted for the next summary");
        assertEquals(1, d.flush(20 * SECOND).count());
        assertNull(d.flush(30 * SECOND), "a quiet interval: no summary");
        assertFalse(d.isOpen());
        assertTrue(d.add(31 * SECOND, "MALFORMED", "/p/y"), "after a quiet interval the next is in full again");
    }

    @Test
    void keysRepeatedAreShownOnceAndTheIntervalMustBePositive() {
        LogDigest d = new LogDigest(SECOND);
        d.add(0, "WRONG_LEASE", "/p/b");
        d.add(1, "WRONG_LEASE", "/p/b");
        d.add(2, "DELETED", "/p/b");
        LogDigest.Summary s = d.flush(SECOND);
        assertNotNull(s);
        assertEquals(List.of("/p/b"), s.firstKeys());
        assertEquals("/p/b, ...", s.keys());
        assertEquals("DELETED 1, WRONG_LEASE 1", s.kinds());
        assertEquals("1,234,567", LogDigest.grouped(1_234_567));
        assertThrows(IllegalArgumentException.class, () -> new LogDigest(0));
    }
}
