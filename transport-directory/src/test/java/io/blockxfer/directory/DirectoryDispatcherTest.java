package io.blockxfer.directory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The relay: snapshot first, replays dropped, resync differences, reconnect notices, the callback thread. */
class DirectoryDispatcherTest {

    private final DirectoryDispatcher dispatcher = new DirectoryDispatcher("test");

    @AfterEach
    void close() {
        dispatcher.close();
    }

    /** Writes each callback as a line: "snapshot 5 [/d/a@3]", "put /d/a@7", "delete /d/b@8 resync", ... */
    static final class Lines implements DirectoryListener {
        final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        final List<String> threads = new ArrayList<>();

        @Override
        public void snapshot(DirectorySnapshot snapshot) {
            threads.add(Thread.currentThread().getName());
            lines.add("snapshot " + snapshot.revision() + " " + snapshot.entries().stream()
                    .map(e -> e.key() + "@" + e.revision()).toList());
        }

        @Override
        public void changed(DirectoryEvent event) {
            threads.add(Thread.currentThread().getName());
            lines.add(event.type().name().toLowerCase(java.util.Locale.ROOT) + " " + event.key() + "@"
                    + event.revision() + (event.isResync() ? " resync" : ""));
        }

        @Override
        public void disconnected(String reason) {
            lines.add("disconnected " + reason);
        }

        @Override
        public void reconnected(long revision, boolean resync) {
            lines.add("reconnected " + revision + (resync ? " resync" : ""));
        }

        String next() throws InterruptedException {
            String line = lines.poll(5, TimeUnit.SECONDS);
            if (line == null) {
                throw new AssertionError("no callback within 5 s");
            }
            return line;
        }

        void expect(String... expected) throws InterruptedException {
            for (String e : expected) {
                assertEquals(e, next());
            }
        }

        /** Nothing more is delivered: a marker relayed after everything else comes next. */
        void expectNothingBefore(DirectoryDispatcher.Relay relay, String key, long revision) throws InterruptedException {
            relay.put(key, new byte[0], revision);
            assertEquals("put " + key + "@" + revision, next());
        }
    }

    private static DirectoryEntry entry(String key, long revision) {
        return new DirectoryEntry(key, new byte[] {(byte) revision}, revision);
    }

    @Test
    void theSnapshotComesFirstThenEventsInOrderOnTheDispatcherThread() throws Exception {
        Lines lines = new Lines();
        DirectoryDispatcher.Relay relay = dispatcher.relay(lines, () -> { });
        relay.put("/d/early", new byte[1], 4); // before the listing: held, then dropped (the listing covers it)
        relay.put("/d/later", new byte[1], 6); // held, then delivered after the snapshot
        relay.listed(List.of(entry("/d/b", 2), entry("/d/a", 3)), 5);
        relay.deleted("/d/a", 7);
        lines.expect("snapshot 5 [/d/a@3, /d/b@2]", "put /d/later@6", "delete /d/a@7");
        assertEquals(7, relay.revision());
        assertEquals(8, relay.resumeRevision());
        assertTrue(lines.threads.stream().allMatch(t -> t.equals("blockxfer-directory-test")), lines.threads.toString());
    }

    @Test
    void anIdleDispatcherEndsItsThreadAndTheNextCallbackStartsAnotherInOrder() throws Exception {
        try (DirectoryDispatcher quick = new DirectoryDispatcher("idle", Duration.ofMillis(50))) {
            Lines lines = new Lines();
            AtomicReference<Thread> first = new AtomicReference<>();
            DirectoryDispatcher.Relay relay = quick.relay(new DirectoryListener() {
                @Override
                public void snapshot(DirectorySnapshot snapshot) {
                    first.set(Thread.currentThread());
                    lines.snapshot(snapshot);
                }

                @Override
                public void changed(DirectoryEvent event) {
                    assertTrue(quick.isDispatchThread());
                    lines.changed(event);
                }
            }, () -> { });
            relay.listed(List.of(entry("/d/a", 3)), 5);
            lines.expect("snapshot 5 [/d/a@3]");
            Thread t = first.get();
            assertTrue(t.isVirtual(), t.toString());
            assertTrue(t.join(Duration.ofSeconds(5)), "the idle dispatcher's thread did not end");
            assertFalse(quick.threadAlive());
            relay.put("/d/b", new byte[1], 6);
            relay.put("/d/c", new byte[1], 7);
            lines.expect("put /d/b@6", "put /d/c@7");
            assertTrue(lines.threads.stream().allMatch(n -> n.equals("blockxfer-directory-idle")), lines.threads.toString());
        }
    }

    @Test
    void eventsAReplayedWatchDeliversAgainAreDroppedExactly() throws Exception {
        Lines lines = new Lines();
        DirectoryDispatcher.Relay relay = dispatcher.relay(lines, () -> { });
        relay.listed(List.of(entry("/d/a", 3)), 5);
        relay.put("/d/b", new byte[1], 6);
        relay.put("/d/c", new byte[1], 6); // same revision, another key: one transaction
        relay.disconnected("stream reset");
        // the resumed watch replays from an older revision, then goes on
        relay.put("/d/a", new byte[1], 3);
        relay.put("/d/b", new byte[1], 6);
        relay.put("/d/c", new byte[1], 6);
        relay.put("/d/d", new byte[1], 6); // the rest of revision 6, not delivered before
        relay.deleted("/d/b", 7);
        relay.deleted("/d/zz", 8); // never seen: nothing to delete
        lines.expect("snapshot 5 [/d/a@3]", "put /d/b@6", "put /d/c@6", "disconnected stream reset", "reconnected 6", "put /d/d@6",
                "delete /d/b@7");
        lines.expectNothingBefore(relay, "/d/marker", 9);
    }

    @Test
    void aSecondListingIsAResyncWhoseDifferencesBecomeEvents() throws Exception {
        Lines lines = new Lines();
        DirectoryDispatcher.Relay relay = dispatcher.relay(lines, () -> { });
        relay.listed(List.of(entry("/d/same", 2), entry("/d/changed", 3), entry("/d/gone", 4), entry("/d/gone2", 1)),
                5);
        relay.disconnected("compacted");
        relay.listed(List.of(entry("/d/same", 2), entry("/d/new", 12), entry("/d/changed", 9)), 20);
        relay.put("/d/old", new byte[1], 19); // at or below the listing: covered by it
        relay.put("/d/live", new byte[1], 21);
        lines.expect("snapshot 5 [/d/changed@3, /d/gone@4, /d/gone2@1, /d/same@2]", "disconnected compacted",
                "reconnected 20 resync", "put /d/changed@9 resync", "put /d/new@12 resync",
                "delete /d/gone@20 resync", "delete /d/gone2@20 resync", "put /d/live@21");
        assertEquals(21, relay.revision());
    }

    @Test
    void disconnectsAreToldOnceAndAnEventAfterOneImpliesTheReturn() throws Exception {
        Lines lines = new Lines();
        DirectoryDispatcher.Relay relay = dispatcher.relay(lines, () -> { });
        relay.disconnected("before the snapshot"); // nothing to tell yet
        relay.listed(List.of(), 0);
        relay.disconnected("one");
        relay.disconnected("two");
        relay.resumed();
        relay.resumed();
        relay.disconnected("three");
        relay.put("/d/a", new byte[1], 1);
        lines.expect("snapshot 0 []", "disconnected one", "reconnected 0", "disconnected three", "reconnected 0",
                "put /d/a@1");
        lines.expectNothingBefore(relay, "/d/marker", 2);
    }

    @Test
    void aListenerThatThrowsStillGetsTheNextCallback() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        CountDownLatch third = new CountDownLatch(3);
        DirectoryListener throwing = new DirectoryListener() {
            @Override
            public void snapshot(DirectorySnapshot snapshot) {
                calls.incrementAndGet();
                third.countDown();
                throw new IllegalStateException("listener bug");
            }

            @Override
            public void changed(DirectoryEvent event) {
                calls.incrementAndGet();
                third.countDown();
                throw new AssertionError("listener assertion");
            }
        };
        DirectoryDispatcher.Relay relay = dispatcher.relay(throwing, () -> { });
        relay.listed(List.of(), 1);
        relay.put("/d/a", new byte[1], 2);
        relay.put("/d/b", new byte[1], 3);
        assertTrue(third.await(5, TimeUnit.SECONDS), "callbacks after a throw: " + calls.get());
        CountDownLatch lost = new CountDownLatch(2);
        Publication p = new FixedPublication();
        dispatcher.leaseLost(p, (pub, reason) -> {
            lost.countDown();
            throw new IllegalStateException("listener bug");
        }, "expired");
        dispatcher.leaseLost(p, (pub, reason) -> lost.countDown(), "expired");
        assertTrue(lost.await(5, TimeUnit.SECONDS));
    }

    @Test
    void aClosedRelayDeliversNothingMoreAndRunsItsCloseOnce() throws Exception {
        Lines lines = new Lines();
        AtomicInteger closes = new AtomicInteger();
        DirectoryDispatcher.Relay relay = dispatcher.relay(lines, closes::incrementAndGet);
        relay.listed(List.of(), 1);
        lines.expect("snapshot 1 []");
        relay.close();
        relay.close();
        relay.put("/d/a", new byte[1], 2);
        assertEquals(1, closes.get());
        assertTrue(relay.isClosed());
        Lines other = new Lines();
        DirectoryDispatcher.Relay second = dispatcher.relay(other, () -> { });
        second.listed(List.of(), 2);
        other.expect("snapshot 2 []"); // queued after the closed relay's put, which was dropped
        assertNull(lines.lines.poll(), "a closed relay delivered " + lines.lines);
    }

    @Test
    void closingTheDispatcherDropsQueuedCallbacksAndEndsItsThread() throws Exception {
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger after = new AtomicInteger();
        DirectoryDispatcher.Relay relay = dispatcher.relay(new DirectoryListener() {
            @Override
            public void snapshot(DirectorySnapshot snapshot) {
                inside.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }

            @Override
            public void changed(DirectoryEvent event) {
                after.incrementAndGet();
            }
        }, () -> { });
        relay.listed(List.of(), 1);
        assertTrue(inside.await(5, TimeUnit.SECONDS));
        relay.put("/d/a", new byte[1], 2);
        Thread closer = Thread.ofPlatform().start(dispatcher::close);
        Thread.sleep(100); // let close clear the queue while the snapshot callback still runs
        release.countDown();
        closer.join(Duration.ofSeconds(10).toMillis());
        assertFalse(closer.isAlive(), "close waits for the running callback only");
        assertEquals(0, after.get(), "a queued callback ran after close");
        assertFalse(dispatcher.threadAlive(), "the dispatcher's thread still runs after close");
    }

    /** A publication that is only an object to pass around. */
    static final class FixedPublication implements Publication {
        @Override public String memberId() { return "m"; }
        @Override public String key() { return "/d/m"; }
        @Override public Duration ttl() { return Duration.ofSeconds(2); }
        @Override public long revision() { return 1; }
        @Override public boolean isLost() { return true; }
        @Override public long lease() { return 1; }
        @Override public long restore() { throw new IllegalStateException("lost"); }
        @Override public boolean deleteIfAt(long revision) { throw new IllegalStateException("lost"); }
        @Override public void close() { }
    }
}
