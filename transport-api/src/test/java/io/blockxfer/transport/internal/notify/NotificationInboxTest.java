package io.blockxfer.transport.internal.notify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.blockxfer.transport.Notification;
import io.blockxfer.transport.NotificationStats;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The inbox's drains take notifications in batches and still keep its promises: every queued
 * notification is delivered once, in arrival order; a handler that throws leaves the rest queued as
 * the oldest, in order; a batch in a drain's hands counts against the capacity until its handler
 * has had all of it; a close meanwhile discards what the handler did not get, counted; waiting
 * callers are woken whenever the queue stops being empty, and only then.
 */
class NotificationInboxTest {

    private static NotificationInbox.Offer offer(NotificationInbox inbox, int i) {
        return inbox.offer("p", "agent", Notification.Kind.WRITE, i, new byte[] {(byte) i}, false);
    }

    private static List<Long> drain(NotificationInbox inbox) {
        List<Long> ids = new ArrayList<>();
        inbox.drainTo(n -> ids.add(n.transferId()), Integer.MAX_VALUE);
        return ids;
    }

    @Test
    void aDrainDeliversEveryQueuedNotificationOnceInArrivalOrderAcrossBatches() {
        NotificationInbox inbox = new NotificationInbox(1000, () -> { });
        for (int i = 0; i < 200; i++) {
            assertEquals(NotificationInbox.Offer.QUEUED, offer(inbox, i));
        }
        List<Long> ids = new ArrayList<>();
        assertEquals(150, inbox.drainTo(n -> ids.add(n.transferId()), 150));
        assertEquals(50, inbox.drainTo(n -> ids.add(n.transferId()), Integer.MAX_VALUE));
        assertEquals(0, inbox.drainTo(n -> ids.add(n.transferId()), Integer.MAX_VALUE));
        for (int i = 0; i < 200; i++) {
            assertEquals(i, ids.get(i), "position " + i);
        }
        NotificationStats s = inbox.stats();
        assertEquals(200, s.received());
        assertEquals(200, s.delivered());
        assertEquals(0, s.queued());
    }

    @Test
    void aHandlerThatThrowsLeavesTheRestQueuedAsTheOldestInOrder() {
        NotificationInbox inbox = new NotificationInbox(100, () -> { });
        for (int i = 0; i < 10; i++) {
            offer(inbox, i);
        }
        List<Long> seen = new ArrayList<>();
        RuntimeException thrown = assertThrows(RuntimeException.class, () -> inbox.drainTo(n -> {
            seen.add(n.transferId());
            if (n.transferId() == 2) {
                throw new RuntimeException("handler failed");
            }
        }, Integer.MAX_VALUE));
        assertEquals("handler failed", thrown.getMessage());
        assertEquals(List.of(0L, 1L, 2L), seen);
        assertEquals(7, inbox.stats().queued());
        assertEquals(3, inbox.stats().delivered());
        offer(inbox, 10);
        assertEquals(List.of(3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L), drain(inbox));
        assertEquals(11, inbox.stats().delivered());
    }

    @Test
    void aBatchInADrainsHandsCountsAgainstTheCapacityUntilItsHandlerHasHadAllOfIt() {
        NotificationInbox inbox = new NotificationInbox(4, () -> { });
        for (int i = 0; i < 4; i++) {
            offer(inbox, i);
        }
        List<NotificationInbox.Offer> offersDuringTheDrain = new ArrayList<>();
        inbox.drainTo(n -> offersDuringTheDrain.add(offer(inbox, 100 + (int) n.transferId())), Integer.MAX_VALUE);
        assertEquals(List.of(NotificationInbox.Offer.DROPPED, NotificationInbox.Offer.DROPPED,
                NotificationInbox.Offer.DROPPED, NotificationInbox.Offer.DROPPED), offersDuringTheDrain,
                "the four taken are held until the batch is settled");
        assertEquals(4, inbox.stats().dropped());
        assertEquals(List.of(), drain(inbox));
        for (int i = 0; i < 4; i++) {
            assertEquals(NotificationInbox.Offer.QUEUED, offer(inbox, 200 + i), "the batch settled: room for four");
        }
    }

    @Test
    void aCloseWhileTheHandlerHoldsABatchDiscardsWhatItDidNotGet() {
        NotificationInbox inbox = new NotificationInbox(100, () -> { });
        for (int i = 0; i < 5; i++) {
            offer(inbox, i);
        }
        assertThrows(IllegalStateException.class, () -> inbox.drainTo(n -> {
            if (n.transferId() == 1) {
                inbox.close();
                throw new IllegalStateException("closed under the handler");
            }
        }, Integer.MAX_VALUE));
        NotificationStats s = inbox.stats();
        assertEquals(2, s.delivered());
        assertEquals(3, s.discarded());
        assertEquals(0, s.queued());
        assertEquals(NotificationInbox.Offer.CLOSED, offer(inbox, 9));
    }

    @Test
    void waitersAreWokenWhenTheQueueStopsBeingEmptyAndOnlyThen() {
        AtomicInteger wakes = new AtomicInteger();
        NotificationInbox inbox = new NotificationInbox(100, wakes::incrementAndGet);
        offer(inbox, 0);
        offer(inbox, 1);
        offer(inbox, 2);
        assertEquals(1, wakes.get(), "one wake for three offers into a queue that was empty at the first");
        assertThrows(IllegalStateException.class, () -> inbox.drainTo(n -> {
            throw new IllegalStateException("handler failed");
        }, Integer.MAX_VALUE));
        assertEquals(2, wakes.get(), "the batch put back into the empty queue");
        assertEquals(List.of(1L, 2L), drain(inbox));
        offer(inbox, 3);
        assertEquals(3, wakes.get());
        Notification taken = inbox.take();
        inbox.putBack(taken);
        assertEquals(4, wakes.get(), "a put-back into the empty queue");
        offer(inbox, 4);
        assertEquals(4, wakes.get());
    }
}
