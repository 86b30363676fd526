package io.blockxfer.examples;

import io.blockxfer.holds.Hold;
import io.blockxfer.holds.HoldEnd;
import io.blockxfer.holds.HoldGrant;
import io.blockxfer.holds.Holds;
import io.blockxfer.holds.Lease;
import io.blockxfer.holds.LeaseException;
import io.blockxfer.transport.DataTransport;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntConsumer;

/**
 * docs/holds.md, the pull hand-off as a prefill and a decode worker write it: the prefill lends a
 * request's computed blocks to the decode worker that will read them, and frees them when the
 * hold ended; the decode worker reads them into its own blocks and releases with the last read.
 * Each side is as thread-safe as its {@link Holds}.
 */
final class PullHandOff {

    private PullHandOff() {
    }

    /** Timeouts for a deployment whose membership TTL is 15 s (see docs/holds.md). */
    static final Duration HOLD_TTL = Duration.ofSeconds(6);
    static final Duration HOLD_LIMIT = Duration.ofSeconds(60);

    /** The prefill side: owns the blocks. */
    static final class Prefill implements AutoCloseable {
        private final Holds holds;

        // @start region="prefill"
        // prefill: owns the blocks
        Prefill(DataTransport transport) {
            holds = Holds.builder(transport)
                    .pumpNotifications(n -> { /* the engine's own notifications */ })
                    .build();
        }

        // the request's blocks are computed: hold them for the decode worker; the grant goes with the request
        byte[] lend(String decodeWorker, int[] blocks) {
            Hold hold = holds.create(decodeWorker, blocks, HOLD_TTL, HOLD_LIMIT);
            return hold.grant().encode();
        }

        // each scheduler step: blocks whose hold ended are free again, whatever the reason
        int step(IntConsumer free) {
            return holds.pollEnded((HoldEnd end) -> {
                for (int b : end.blocks()) {
                    free.accept(b);
                }
                // end.reason(): RELEASED (read), EXPIRED (the reader died or froze), CANCELLED, PEER_REMOVED, ...
            });
        }
        // @end region="prefill"

        @Override
        public void close() {
            holds.close();
        }
    }

    /** The decode side: reads the blocks into its own. */
    static final class Decode implements AutoCloseable {
        private final Holds holds;

        // @start region="decode"
        // decode: reads them into its own blocks, and releases with the last read
        Decode(DataTransport transport) {
            holds = Holds.builder(transport)
                    .pumpNotifications(n -> { /* the engine's own notifications */ })
                    .build();
        }

        // completes when the blocks are in `into` and the prefill never reused them meanwhile
        CompletableFuture<Void> pull(String prefillWorker, byte[] grant, int[] into) {
            Lease lease = holds.accept(prefillWorker, HoldGrant.decode(grant));
            return lease.readAndRelease(into, lease.blocks())
                    .whenComplete((ok, failure) -> {
                        if (failure instanceof LeaseException) {
                            // the hold ended before the read did: recompute the prefix here
                        }
                    });
        }
        // @end region="decode"

        @Override
        public void close() {
            holds.close();
        }
    }
}
