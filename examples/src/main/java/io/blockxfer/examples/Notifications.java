package io.blockxfer.examples;

import static java.nio.charset.StandardCharsets.US_ASCII;

import io.blockxfer.transport.DataTransport;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * docs/notifications.md: a prefill writes a request's blocks with a message, the decode worker
 * waits for it and answers with a message of its own. Not thread-safe: one exchange at a time.
 */
public final class Notifications {

    private final List<String> landed = new ArrayList<>();

    /**
     * The exchange: {@code prefill} has the peer {@code decode-3}, {@code decode} the peer {@code prefill-0}.
     *
     * @param prefill the writer
     * @param decode the target
     * @param local the writer's blocks
     * @param remote the target's blocks they go to
     * @throws InterruptedException if interrupted while the target waits
     */
    @SuppressWarnings("unused") // `id` is what a reader goes on with
    public void exchange(DataTransport prefill, DataTransport decode, int[] local, int[] remote)
            throws InterruptedException {
        // @start region="exchange"
        // prefill: write the request's blocks and say so in the same call
        long id = prefill.writeBlocks("decode-3", local, remote, "req-42:layer-7".getBytes(US_ASCII));
        // decode: wait for it (or poll without blocking, or subscribe)
        decode.pollNotifications(n -> {
            // n.sender() is "prefill-0" as decode registered it; the blocks already hold the bytes
            landed(n.sender(), n.transferId(), new String(n.payload(), US_ASCII));
        }, 100, TimeUnit.MILLISECONDS);
        // a reader tells the owner it is done with blocks it READ, or a sender that a write failed
        decode.sendNotification("prefill-0", "req-42:done".getBytes(US_ASCII));
        // @end region="exchange"
    }

    private void landed(String sender, long transferId, String payload) {
        landed.add(sender + " #" + transferId + " " + payload);
    }

    /**
     * What the target learnt so far, one line per notification: sender, transfer id, payload.
     *
     * @return the lines, oldest first
     */
    public List<String> landed() {
        return List.copyOf(landed);
    }
}
