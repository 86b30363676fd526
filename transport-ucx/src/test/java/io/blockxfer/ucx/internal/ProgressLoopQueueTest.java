package io.blockxfer.ucx.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.ucx.UcxTestSupport;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpParams;
import org.openucx.jucx.ucp.UcpWorkerParams;

/**
 * A full command queue slows the submitting thread instead of failing its command, for a bounded
 * time: the loop's thread is held inside a command (so nobody drains), the queue of 8 fills, and
 * further submits wait until the loop is released, or fail once the bound passes.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProgressLoopQueueTest {

    private UcpContext context;

    @BeforeEach
    void ucx() {
        UcxTestSupport.requireUcx();
        context = new UcpContext(new UcpParams().requestRmaFeature().requestWakeupFeature());
    }

    @AfterEach
    void close() {
        if (context != null) {
            context.close();
        }
    }

    /** Holds the loop's thread (it owns the worker while it runs a command) until released. */
    private static final class Blocker implements LoopCommand {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public void run(ProgressLoop loop) {
            entered.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void reject(String why) {
            entered.countDown();
        }
    }

    private static final class Counted implements LoopCommand {
        final AtomicInteger ran;
        final AtomicInteger rejected;

        Counted(AtomicInteger ran, AtomicInteger rejected) {
            this.ran = ran;
            this.rejected = rejected;
        }

        @Override
        public void run(ProgressLoop loop) {
            ran.incrementAndGet();
        }

        @Override
        public void reject(String why) {
            rejected.incrementAndGet();
        }
    }

    @ParameterizedTest(name = "polls drive: {0}")
    @ValueSource(booleans = {false, true})
    void aFullQueueSlowsTheSubmitterUntilThereIsRoom(boolean pollersDrive) throws Exception {
        ProgressLoop loop = new ProgressLoop("queue-test", context.newWorker(new UcpWorkerParams()), MemorySegment.NULL,
                1, pollersDrive, 8, 10_000, 1_000_000);
        loop.start();
        Blocker blocker = new Blocker();
        AtomicInteger ran = new AtomicInteger();
        AtomicInteger rejected = new AtomicInteger();
        try {
            loop.execute(blocker);
            assertTrue(blocker.entered.await(10, TimeUnit.SECONDS), "the loop never ran the blocking command");
            long holdMillis = 300;
            Thread releaser = Thread.ofPlatform().start(() -> {
                try {
                    Thread.sleep(holdMillis);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                blocker.release.countDown();
            });
            long start = System.nanoTime();
            for (int i = 0; i < 40; i++) {
                loop.execute(new Counted(ran, rejected)); // the 9th waits for room
            }
            long waitedMillis = (System.nanoTime() - start) / 1_000_000;
            releaser.join();
            assertTrue(waitedMillis >= holdMillis / 2, "the submitter was not slowed: " + waitedMillis + " ms");
            assertTrue(loop.queueFullWaits() > 0, "no submit met the full queue");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (ran.get() < 40 && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertEquals(40, ran.get(), "every queued command runs once the loop is free");
            assertEquals(0, rejected.get());
        } finally {
            blocker.release.countDown();
            assertTrue(loop.stop(10_000));
        }
    }

    @Test
    void aQueueThatStaysFullFailsTheSubmitAfterTheBound() throws Exception {
        ProgressLoop loop = new ProgressLoop("queue-test", context.newWorker(new UcpWorkerParams()), MemorySegment.NULL, 1,
                true, 8, 200, 1_000_000);
        loop.start();
        Blocker blocker = new Blocker();
        AtomicInteger ran = new AtomicInteger();
        AtomicInteger rejected = new AtomicInteger();
        try {
            loop.execute(blocker);
            assertTrue(blocker.entered.await(10, TimeUnit.SECONDS));
            for (int i = 0; i < 8; i++) {
                loop.execute(new Counted(ran, rejected));
            }
            long start = System.nanoTime();
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> loop.execute(new Counted(ran, rejected)));
            long waitedMillis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(e.getMessage().contains("stayed full for 200 ms"), e.getMessage());
            assertTrue(waitedMillis >= 200 && waitedMillis < 5_000, "waited " + waitedMillis + " ms");
        } finally {
            blocker.release.countDown();
            assertTrue(loop.stop(10_000));
        }
        assertEquals(8, ran.get() + rejected.get(), "each queued command ran or was rejected once");
    }
}
