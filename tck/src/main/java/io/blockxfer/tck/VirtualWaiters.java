package io.blockxfer.tck;

import static org.junit.jupiter.api.Assertions.fail;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.TransferFuture;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Many virtual threads, each submitting its own transfer and waiting for it: the even ones
 * asynchronously, blocking on their future (half of them with {@code get} and a limit, half with
 * {@code join}, both of which drive the transport), the odd ones with a WRITE and waits of their peer
 * ({@code poll(peer, handler, limit)}) until their id was reported, by their own wait or another
 * thread's. Every report must be of a transfer a thread submitted, and reach one wait only.
 *
 * <p><b>Thread safety:</b> {@link #run} on one thread; the virtual threads share thread-safe state.
 */
final class VirtualWaiters {

    private final Fixture fx;
    private final DataTransport transport;
    private final int peers;
    private final int threads;

    VirtualWaiters(Fixture fx, DataTransport transport, int peers, int threads) {
        this.fx = fx;
        this.transport = transport;
        this.peers = peers;
        this.threads = threads;
    }

    /** Starts the threads at once, and fails unless every one finished with its transfer done. */
    void run() throws InterruptedException {
        Map<Long, Boolean> reported = new ConcurrentHashMap<>();
        Queue<String> problems = new ConcurrentLinkedQueue<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> started = new ArrayList<>(threads);
        long deadline = System.nanoTime() + fx.env.timeout().toNanos() * 2;
        for (int i = 0; i < threads; i++) {
            int n = i;
            started.add(Thread.ofVirtual().name("tck-" + fx.rule.name() + "-vt-" + i).start(() -> {
                try {
                    start.await();
                    waitForOwnTransfer(n, reported, deadline);
                } catch (Throwable e) {
                    problems.add("thread " + n + ": " + e);
                }
            }));
        }
        start.countDown();
        for (Thread t : started) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || !t.join(java.time.Duration.ofNanos(left))) {
                fail(fx.msg("virtual thread " + t.getName() + " did not finish within "
                        + fx.env.timeout().toMillis() * 2 + " ms; problems so far: " + first(problems)));
            }
        }
        if (!problems.isEmpty()) {
            fail(fx.msg(problems.size() + " of " + threads + " virtual threads failed: " + first(problems)));
        }
    }

    private static List<String> first(Queue<String> problems) {
        return problems.stream().limit(5).toList();
    }

    private void waitForOwnTransfer(int n, Map<Long, Boolean> reported, long deadline) throws Exception {
        String peer = "vt" + (n % peers);
        int b = n % Fixture.BLOCKS;
        if (n % 2 == 0) {
            TransferFuture f = transport.writeBlocksAsync(peer, new int[] {b}, new int[] {b});
            try {
                if (n % 4 == 0) {
                    f.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } else {
                    f.join(); // VirtualWaiters.run fails the rule if this never returns
                }
            } catch (ExecutionException | CompletionException e) {
                throw new AssertionError("asynchronous transfer " + f.transferId() + " failed: " + e.getCause(), e);
            } catch (TimeoutException e) {
                throw new AssertionError("the future of transfer " + f.transferId() + " never completed", e);
            }
            return;
        }
        long id = fx.write(transport, peer, b, b);
        while (!reported.containsKey(id)) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("transfer " + id + " to '" + peer + "' was never reported");
            }
            transport.poll(peer, (x, ok) -> {
                if (reported.putIfAbsent(x, ok) != null) {
                    throw new AssertionError("transfer " + x + " was reported twice");
                }
                if (!ok) {
                    throw new AssertionError("transfer " + x + " failed");
                }
            }, 50, TimeUnit.MILLISECONDS);
        }
    }
}
