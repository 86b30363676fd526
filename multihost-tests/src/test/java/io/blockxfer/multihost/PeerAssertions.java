package io.blockxfer.multihost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The verdicts the suite passes on a session's {@code STATS}: exactly-once bookkeeping, and, for
 * a peer that had no fault, every transfer completed and verified.
 *
 * <p><b>Thread safety:</b> stateless.
 */
final class PeerAssertions {

    private PeerAssertions() {
    }

    /** No id lost, reported twice or reported to the wrong peer, and no wrong byte in any completed READ. */
    static void assertExactlyOnce(String backend, EventFields s) {
        String who = backend + " " + s.get("peer") + ": ";
        assertEquals(0, s.num("lost"), who + "ids never reported: " + s);
        assertEquals(0, s.num("dup"), who + "ids reported twice: " + s);
        assertEquals(0, s.num("foreign"), who + "ids reported to the wrong peer: " + s);
        assertEquals(s.num("submitted"), s.num("done") + s.num("failed"), who + "submitted != done + failed: " + s);
        assertEquals(0, s.num("mismatches"), who + "wrong bytes: " + s);
    }

    /** As {@link #assertExactlyOnce}, and nothing failed, and every completion was verified. */
    static void assertHealthy(String backend, EventFields s) {
        assertExactlyOnce(backend, s);
        String who = backend + " " + s.get("peer") + ": ";
        assertEquals(0, s.num("failed"), who + "failed transfers: " + s);
        assertEquals(0, s.num("notSubmitted"), who + "transfers not submitted: " + s);
        assertTrue(s.num("done") > 0, who + "no transfer completed: " + s);
        assertEquals(0, s.num("unverifiedWrites"), who + "completed writes not read back: " + s);
        assertEquals(s.num("writesDone"), s.num("verifiedWrites"), who + "writes not verified: " + s);
        assertEquals(s.num("done"), s.num("writesDone") + s.num("verifiedWrites") + s.num("verifiedReads"),
                who + "completions not verified: " + s);
    }

    /** The target's memory holds the patterns the initiator's model says it holds. */
    static void assertModelHolds(String backend, TargetHost target, String model) {
        EventFields v = target.verify(model);
        assertEquals(0, v.num("mismatches"), backend + " " + target.name() + ": target memory differs from the"
                + " initiator's model at block " + v.get("first"));
        assertTrue(v.num("checked") > 0, backend + " " + target.name() + ": no known block to check");
    }
}
