package io.blockxfer.tck;

import io.blockxfer.transport.DataTransport;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * Takes a kit target's notifications with its waiting poll, acting on each at delivery
 * ({@link NotificationProbe#onDelivery}), in this JVM or in a target process.
 *
 * <p><b>Thread safety:</b> stateless.
 */
final class NotificationTaker {

    private NotificationTaker() {
    }

    /** Takes until {@code count} notifications arrived or {@code limit} passed. */
    static List<ReceivedNotification> take(DataTransport transport, IntFunction<MemorySegment> block, int count,
            Duration limit) {
        List<ReceivedNotification> got = new ArrayList<>();
        long deadline = System.nanoTime() + limit.toNanos();
        try {
            while (got.size() < count) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                transport.pollNotifications(n -> got.add(new ReceivedNotification(n,
                        NotificationProbe.onDelivery(n, block))), Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)),
                        TimeUnit.NANOSECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return got;
    }
}
