package io.blockxfer.examples;

import io.blockxfer.holds.Hold;
import io.blockxfer.holds.HoldEnd;
import io.blockxfer.holds.Holds;
import io.blockxfer.holds.Lease;
import io.blockxfer.transport.DataTransport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/**
 * docs/holds.md, the push hand-off as a decode and a prefill worker write it: the decode worker
 * keeps blocks allocated for a request and lends them to the prefill worker that will write them;
 * the prefill writes the request's blocks and releases with the last write; the decode worker
 * learns the blocks are written, or that they never will be. Each side is as thread-safe as its
 * {@link Holds}.
 */
final class PushHandOff {

    private PushHandOff() {
    }

    static final Duration HOLD_TTL = Duration.ofSeconds(6);
    static final Duration HOLD_LIMIT = Duration.ofSeconds(60);

    /** The decode side: owns the blocks the prefill writes. */
    static final class Decode implements AutoCloseable {
        private final Holds holds;

        // @start region="decode"
        // decode: owns the blocks the prefill writes
        Decode(DataTransport transport) {
            holds = Holds.builder(transport)
                    .pumpNotifications(n -> { /* the engine's own notifications */ })
                    .build();
        }

        // blocks allocated for requestId: hold them for the prefill worker and tell it
        Hold expect(String prefillWorker, String requestId, int[] blocks) {
            Hold hold = holds.create(prefillWorker, blocks, HOLD_TTL, HOLD_LIMIT);
            hold.sendGrant(requestId.getBytes(StandardCharsets.UTF_8));
            return hold;
        }

        // each scheduler step: RELEASED means the blocks hold the request's KV; anything else, free them
        int step(BiConsumer<HoldEnd, Boolean> done) {
            return holds.pollEnded(end -> done.accept(end, end.reason() == HoldEnd.Reason.RELEASED));
        }
        // @end region="decode"

        @Override
        public void close() {
            holds.close();
        }
    }

    /** The prefill side: writes into the decode worker's blocks. */
    static final class Prefill implements AutoCloseable {
        private final Holds holds;

        // @start region="prefill"
        // prefill: writes into them
        Prefill(DataTransport transport) {
            holds = Holds.builder(transport)
                    .pumpNotifications(n -> { /* the engine's own notifications */ })
                    .build();
        }

        // each scheduler step: the decode workers' grants; each lease is renewed while the request computes
        int take(BiConsumer<String, Lease> byRequest) {
            return holds.pollLeases(lease -> byRequest.accept(new String(lease.tag(), StandardCharsets.UTF_8), lease));
        }

        // the request's blocks are computed: write them and release with the last write
        CompletableFuture<Void> push(Lease lease, int[] computed) {
            return lease.writeAndRelease(computed, lease.blocks());
            // if it fails, the lease ends ABANDONED and the decode worker learns its blocks are not written
        }
        // @end region="prefill"

        @Override
        public void close() {
            holds.close();
        }
    }
}
