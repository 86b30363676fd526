package io.blockxfer.benchmarks;

import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.spi.NotificationSink;
import io.blockxfer.transport.spi.OutboundNotification;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A benchmark fixture: an {@link InstantEngine} (it moves no bytes, its transfers are done when
 * submitted) that keeps the notification frames its transport sends, and holds the sink its
 * transport receives them through, so that a benchmark can hand one transport's frames to
 * another's receive path alone.
 *
 * <p><b>Thread safety:</b> for one benchmark thread.
 */
final class FrameEngine extends InstantEngine {

    private final List<byte[]> sent = new ArrayList<>();
    private @Nullable NotificationSink sink;

    FrameEngine(TransportConfig config) {
        super(config);
    }

    /** The sink of this engine's transport: its receive path. */
    NotificationSink sink() {
        NotificationSink s = sink;
        if (s == null) {
            throw new IllegalStateException("the transport did not bind its notification sink");
        }
        return s;
    }

    /** The frames sent since the last call, in order. */
    byte[][] takeSent() {
        byte[][] frames = sent.toArray(byte[][]::new);
        sent.clear();
        return frames;
    }

    @Override
    public boolean bindNotificationSink(NotificationSink sink) {
        this.sink = sink;
        return true;
    }

    @Override
    public void sendNotification(Object peer, OutboundNotification notification) {
        sent.add(notification.frame());
    }

    @Override
    public String backendName() {
        return "frames";
    }
}
