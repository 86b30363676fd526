package io.blockxfer.directory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PollResult;
import java.lang.foreign.ValueLayout;
import java.time.Duration;

/** The membership tests' proof that a member is writable: a block written to it lands there. */
final class Writes {

    private Writes() {
    }

    /**
     * Writes block 0 of {@code from}, filled with {@code value}, to block 3 of {@code peer} and
     * asserts that it is done within 5 s and that the byte landed in {@code to}'s region.
     */
    static void assertWriteLands(DataTransport from, String peer, DataTransport to, byte value)
            throws InterruptedException {
        from.region().segment().asSlice(0, 256).fill(value);
        long id = from.writeBlocks(peer, new int[] {0}, new int[] {3});
        assertNotEquals(DataTransport.NOT_SUBMITTED, id, "no peer " + peer);
        long end = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (System.nanoTime() < end) {
            PollResult p = from.poll(peer);
            if (p.done().length + p.failed().length > 0) {
                assertEquals(1, p.done().length, "transfer " + id + " to " + peer + " failed");
                assertEquals(value, to.region().segment().get(ValueLayout.JAVA_BYTE, 3 * 256L + 7));
                return;
            }
            Thread.sleep(1);
        }
        throw new AssertionError("transfer " + id + " did not end");
    }
}
