package io.blockxfer.directory.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.transport.PeerDescriptor;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Coalescing of flapping members and the epoch check, step by step on a clock of our own. */
class MemberTableTest {

    private static final long SECOND = 1_000_000_000L;
    private static final PeerDescriptor D = new PeerDescriptor("loopback", "", 0, 4, 64, new byte[4]);

    private static Accepted entry(String id, long epoch) {
        return new Accepted(id, epoch, D, new byte[] {(byte) epoch, 1, 2}, epoch * 10);
    }

    private final MemberTable table = new MemberTable(SECOND, 3);

    @Test
    void aJoinIsAppliedAtOnceAndChangesWithinTheIntervalCollapseIntoTheLatest() {
        var add = assertInstanceOf(MemberTable.Add.class, table.put(entry("a", 1), 0));
        assertEquals(1, add.entry().epoch());
        assertTrue(!add.replaces());
        var flush = assertInstanceOf(MemberTable.FlushAt.class, table.put(entry("a", 2), SECOND / 10));
        assertEquals(SECOND, flush.at());
        for (int e = 3; e <= 20; e++) {
            assertInstanceOf(MemberTable.Nothing.class, table.put(entry("a", e), SECOND / 10 + e),
                    "one flush is pending already");
        }
        var latest = assertInstanceOf(MemberTable.Add.class, table.flush("a", SECOND));
        assertEquals(20, latest.entry().epoch(), "the latest entry, once");
        assertTrue(latest.replaces());
        assertEquals(20, table.applied("a").epoch());
        // quiet for an interval: the next change is applied at once again
        assertInstanceOf(MemberTable.Add.class, table.put(entry("a", 21), 2 * SECOND + 1));
    }

    @Test
    void settledNamesTheAppliedEntriesThatNoHeldChangeReplaces() {
        table.put(entry("a", 1), 0);
        table.put(entry("b", 1), 0);
        table.put(entry("c", 1), 0);
        table.put(entry("d", 1), 0);
        table.put(entry("e", 1), 0);
        table.delete("b", 0); // removal held
        table.put(entry("c", 2), 1); // newer entry held
        table.delete("d", 2);
        table.put(entry("d", 1), 3); // the same entry back within the interval: no change held
        table.delete("e", 0);
        table.flush("e", SECOND); // e is gone
        assertEquals(List.of("a@1", "d@1"), table.settled().stream().map(Accepted::toString).toList());
        table.flush("b", SECOND);
        table.flush("c", SECOND);
        assertEquals(List.of("a@1", "c@2", "d@1"), table.settled().stream().map(Accepted::toString).toList());
    }

    @Test
    void aFlushBeforeItsTimeAsksAgain() {
        table.put(entry("a", 1), 0);
        table.put(entry("a", 2), 1);
        var again = assertInstanceOf(MemberTable.FlushAt.class, table.flush("a", SECOND / 2));
        assertEquals(SECOND, again.at());
        assertInstanceOf(MemberTable.Add.class, table.flush("a", SECOND));
    }

    @Test
    void aDeleteWaitsOneIntervalSoThatARestartIsOneReAdd() {
        table.put(entry("a", 1), 0);
        var wait = assertInstanceOf(MemberTable.FlushAt.class, table.delete("a", 5 * SECOND));
        assertEquals(6 * SECOND, wait.at());
        assertInstanceOf(MemberTable.Nothing.class, table.put(entry("a", 2), 5 * SECOND + 10));
        var readd = assertInstanceOf(MemberTable.Add.class, table.flush("a", 6 * SECOND));
        assertEquals(2, readd.entry().epoch());
        assertTrue(readd.replaces(), "re-added over the old registration, never removed");
    }

    @Test
    void aDeleteFollowedByTheSameEntryWithinTheIntervalChangesNothing() {
        table.put(entry("a", 1), 0);
        table.delete("a", 5 * SECOND);
        assertInstanceOf(MemberTable.Nothing.class, table.put(entry("a", 1), 5 * SECOND + 10),
                "the same epoch and bytes back while the delete waits: not a replay");
        assertInstanceOf(MemberTable.Nothing.class, table.flush("a", 6 * SECOND));
        assertEquals(1, table.applied("a").epoch());
    }

    @Test
    void anAppliedDeleteRemovesAndOnlyTheSameEntryOrANewerOneComesBack() {
        table.put(entry("a", 1), 0);
        table.delete("a", 5 * SECOND);
        var remove = assertInstanceOf(MemberTable.Remove.class, table.flush("a", 6 * SECOND));
        assertEquals(1, remove.entry().epoch());
        assertNull(table.applied("a"));
        var older = assertInstanceOf(MemberTable.Stale.class, table.put(entry("a", 0), 9 * SECOND));
        assertTrue(older.message().contains("epoch 1"), older.message());
        // the same entry back: EntryCheck found it on its member's live lease (a restore after the interval)
        assertInstanceOf(MemberTable.Add.class, table.put(entry("a", 1), 9 * SECOND));
        assertInstanceOf(MemberTable.Add.class, table.put(entry("a", 2), 19 * SECOND), "a new epoch updates");
        assertInstanceOf(MemberTable.Nothing.class, table.delete("nobody", 9 * SECOND));
    }

    @Test
    void theSameEpochWithOtherBytesIsRefusedAndTheSameBytesAreADuplicate() {
        table.put(entry("a", 4), 0);
        assertInstanceOf(MemberTable.Nothing.class, table.put(entry("a", 4), 10 * SECOND));
        Accepted forged = new Accepted("a", 4, D, new byte[] {9, 9}, 77);
        var stale = assertInstanceOf(MemberTable.Stale.class, table.put(forged, 10 * SECOND));
        assertTrue(stale.message().contains("other bytes"), stale.message());
    }

    @Test
    void withoutAnIntervalEveryChangeIsAppliedAtOnce() {
        MemberTable eager = new MemberTable(0, 10);
        assertInstanceOf(MemberTable.Add.class, eager.put(entry("a", 1), 0));
        assertInstanceOf(MemberTable.Add.class, eager.put(entry("a", 2), 0));
        assertInstanceOf(MemberTable.Remove.class, eager.delete("a", 0));
        assertInstanceOf(MemberTable.Add.class, eager.put(entry("a", 3), 0));
    }

    @Test
    void theEpochsOfTheLastMembersToLeaveAreRemembered() {
        for (String id : new String[] {"a", "b", "c", "d"}) {
            table.put(entry(id, 5), 0);
            table.delete(id, 0);
            assertInstanceOf(MemberTable.Remove.class, table.flush(id, SECOND));
        }
        assertEquals(0, table.highestEpoch("a"), "the oldest of four left members is forgotten (three remembered)");
        assertEquals(5, table.highestEpoch("b"));
        var older = assertInstanceOf(MemberTable.Stale.class, table.put(entry("d", 4), 2 * SECOND));
        assertTrue(older.message().contains("older than epoch 5"), older.message());
        var other = assertInstanceOf(MemberTable.Stale.class, table.put(new Accepted("c", 5, D, new byte[] {7}, 99),
                2 * SECOND));
        assertTrue(other.message().contains("seen before with other bytes"), other.message());
        assertSame(MemberTable.Add.class, table.put(entry("a", 5), 2 * SECOND).getClass());
    }

    @Test
    void theSameEntryBackAfterItsMemberLeftIsAddedAgain() {
        // it passed the lease check: the member restored its entry under its own, live lease
        table.put(entry("a", 5), 0);
        table.delete("a", 0);
        assertInstanceOf(MemberTable.Remove.class, table.flush("a", SECOND));
        var back = assertInstanceOf(MemberTable.Add.class, table.put(entry("a", 5), 3 * SECOND));
        assertEquals(5, back.entry().epoch());
        assertTrue(!back.replaces(), "it was removed");
        Accepted forged = new Accepted("a", 5, D, new byte[] {9, 9}, 77);
        table.delete("a", 5 * SECOND);
        table.flush("a", 6 * SECOND);
        var stale = assertInstanceOf(MemberTable.Stale.class, table.put(forged, 7 * SECOND));
        assertTrue(stale.message().contains("seen before with other bytes"), stale.message());
    }
}
