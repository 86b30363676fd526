package io.blockxfer.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.membership.MemberProcess.Event;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The event-sequence checker of the fault tests: it passes a possible sequence and names each impossible one. */
class MembershipLedgerTest {

    private static Event e(String kind, String member, long epoch) {
        return new Event(0, kind, member, epoch, "");
    }

    private static List<String> problems(Event... events) {
        return MembershipLedger.of(List.of(events)).problems();
    }

    @Test
    void aPossibleSequencePassesAndEndsWithWhatIsHeld() {
        MembershipLedger ledger = MembershipLedger.of(List.of(e("STARTED", "m0", 0), e("PUBLISHED", "m0", 10),
                e("ADDED", "m1", 5), e("ADDED", "m2", 7), e("REFUSED", "probe", 0), e("UPDATED", "m1", 6),
                e("REMOVED", "m2", 7), e("LEASE_LOST", "m0", 10), e("PUBLISH_FAILED", "m0", 0),
                e("PUBLISHED", "m0", 11), e("REREGISTERED", "m1", 6), e("ADDED", "m2", 8),
                e("REGISTRATION_FAILED", "m2", 9), e("REMOVED", "m2", 8), e("LEASE_LOST", "m0", 11),
                e("PUBLISHED", "m0", 12), e("REREGISTERED", "m1", 6)));
        assertEquals(List.of(), ledger.problems());
        assertEquals(Map.of("m1", 6L), ledger.held());
    }

    @Test
    void eachImpossibleStepIsNamed() {
        assertProblem("added while held", e("ADDED", "m1", 5), e("ADDED", "m1", 6));
        assertProblem("added again at an epoch not above 5", e("ADDED", "m1", 5), e("REMOVED", "m1", 5),
                e("ADDED", "m1", 5));
        assertProblem("updated while not held", e("UPDATED", "m1", 5));
        assertProblem("updated to an epoch not above 6", e("ADDED", "m1", 6), e("UPDATED", "m1", 6));
        assertProblem("removed while not held", e("ADDED", "m1", 5), e("REMOVED", "m1", 5), e("REMOVED", "m1", 5));
        assertProblem("removed with epoch 4 while held at 5", e("ADDED", "m1", 5), e("REMOVED", "m1", 4));
        assertProblem("published while its entry of epoch 3 was live", e("PUBLISHED", "m0", 3),
                e("PUBLISHED", "m0", 4));
        assertProblem("published at an epoch not above 3", e("PUBLISHED", "m0", 3), e("LEASE_LOST", "m0", 3),
                e("PUBLISHED", "m0", 3));
        assertProblem("lost while it had no live entry", e("PUBLISHED", "m0", 3), e("LEASE_LOST", "m0", 3),
                e("LEASE_LOST", "m0", 3));
        assertProblem("lost epoch 2 while its live entry was 3", e("PUBLISHED", "m0", 3), e("LEASE_LOST", "m0", 2));
        assertProblem("re-registered while not held", e("PUBLISHED", "m0", 3), e("LEASE_LOST", "m0", 3),
                e("REREGISTERED", "m1", 5));
        assertProblem("re-registered with epoch 4 while held at 5", e("ADDED", "m1", 5), e("PUBLISHED", "m0", 3),
                e("LEASE_LOST", "m0", 3), e("REREGISTERED", "m1", 4));
        assertProblem("re-registered while its own entry was never lost", e("ADDED", "m1", 5),
                e("PUBLISHED", "m0", 3), e("REREGISTERED", "m1", 5));
        assertProblem("re-registered twice after one loss", e("ADDED", "m1", 5), e("PUBLISHED", "m0", 3),
                e("LEASE_LOST", "m0", 3), e("PUBLISHED", "m0", 4), e("REREGISTERED", "m1", 5),
                e("REREGISTERED", "m1", 5));
    }

    private static void assertProblem(String expected, Event... events) {
        List<String> found = problems(events);
        assertEquals(1, found.size(), String.valueOf(found));
        assertTrue(found.getFirst().contains(expected), found.getFirst() + " does not say '" + expected + "'");
    }

    @Test
    void countsAndChangesPickTheirEvents() {
        List<Event> events = List.of(e("ADDED", "m1", 5), e("REFUSED", "probe", 0), e("DISCONNECTED", "m0", 0),
                e("RECONNECTED", "m0", 0), e("REMOVED", "m1", 5), e("ADDED", "m1", 6));
        assertEquals(2, MembershipLedger.count(events, "ADDED", "m1"));
        assertEquals(0, MembershipLedger.count(events, "ADDED", "m2"));
        assertEquals(List.of("ADDED m1", "REMOVED m1", "ADDED m1"), MembershipLedger.changes(events).stream()
                .map(x -> x.kind() + " " + x.member()).toList());
    }
}
