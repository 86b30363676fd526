package io.blockxfer.holds;

import java.util.ArrayList;
import java.util.List;

/**
 * What a holds operation decided under its lock and does after releasing it: hold messages to send
 * and callbacks to run (futures to complete, ends to publish), in the order they were added.
 *
 * <p><b>Thread safety:</b> belongs to the one thread running the operation.
 */
final class Outbox {

    private final List<String> peers = new ArrayList<>(2);
    private final List<byte[]> payloads = new ArrayList<>(2);
    private final List<Runnable> after = new ArrayList<>(2);

    /** Sends {@code payload} to {@code peer} after the lock is released. */
    void send(String peer, byte[] payload) {
        peers.add(peer);
        payloads.add(payload);
    }

    /** Runs {@code action} after the lock is released and the messages are sent. */
    void then(Runnable action) {
        after.add(action);
    }

    boolean isEmpty() {
        return peers.isEmpty() && after.isEmpty();
    }

    /** Sends the messages through {@code messenger}, then runs the callbacks. */
    void flush(Messenger messenger) {
        for (int i = 0; i < peers.size(); i++) {
            messenger.send(peers.get(i), payloads.get(i));
        }
        for (Runnable r : after) {
            r.run();
        }
    }
}
