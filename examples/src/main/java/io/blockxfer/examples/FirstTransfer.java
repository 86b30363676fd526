package io.blockxfer.examples;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The README's transfer: open a transport, register a peer from its descriptor, write blocks to
 * it, and learn how each write ended. Not thread-safe; nothing is kept between calls.
 */
public final class FirstTransfer {

    private FirstTransfer() {
    }

    /**
     * Opens a transport named {@code prefill-0}, registers the peer {@code decode-3} from
     * {@code theirs} and writes local blocks 4, 5, 6 and 7 to its blocks 10, 11, 12 and 13.
     *
     * @param numBlocks the local region's blocks (at least 8), as the peer's (at least 14)
     * @param blockBytes the length of a block, as the peer's
     * @param theirs the peer's encoded descriptor, with the same config fields
     * @throws InterruptedException if interrupted while waiting for a write to end
     */
    @SuppressWarnings({"unused", "FutureReturnValueIgnored"}) // `mine` and `id` are what a reader goes on with
    public static void transfer(int numBlocks, long blockBytes, byte[] theirs) throws InterruptedException {
        // @start region="transfer"
        TransportConfig config = TransportConfig.builder(RegionSpec.allocate(numBlocks, blockBytes))
                .agentName("prefill-0")
                .configFields(Map.of("block_size_factor", 4, "dtype", "bfloat16"))   // fingerprint peers must share
                .transferTimeout(Duration.ofSeconds(10))
                .build();
        try (DataTransport transport = Transports.open(config)) {      // -Dblockxfer.transport=ucx to choose
            byte[] mine = transport.localDescriptor().encode();        // send over your control plane
            transport.addPeer("decode-3", PeerDescriptor.decode(theirs));
            long id = transport.writeBlocks("decode-3", new int[] {4, 5, 6}, new int[] {10, 11, 12});
            transport.poll("decode-3", (transferId, ok) -> { /* done or failed, exactly once */ });
            transport.poll("decode-3", (transferId, ok) -> { }, 50, TimeUnit.MILLISECONDS);  // or block until one ends
            transport.writeBlocksAsync("decode-3", new int[] {7}, new int[] {13})            // or be told
                    .thenRun(() -> { /* landed */ });
        }
        // @end region="transfer"
    }
}
