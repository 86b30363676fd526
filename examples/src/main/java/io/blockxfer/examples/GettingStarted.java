package io.blockxfer.examples;

import static java.nio.charset.StandardCharsets.US_ASCII;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransferFuture;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * docs/getting-started.md, step by step: two peers on loopback exchange descriptors, one writes a
 * block to the other, reads it back and compares, writes with a future, and tells the other that
 * its block landed. Each step is a method the page shows whole. Not thread-safe: one run at a time
 * per pair of transports.
 */
public final class GettingStarted {

    private GettingStarted() {
    }

    /**
     * Opens a transport of 16 blocks of 4 KiB on loopback.
     *
     * @param agentName the transport's name
     * @return the open transport, to close
     */
    // @start region="open"
    static DataTransport open(String agentName) {
        TransportConfig config = TransportConfig.builder(RegionSpec.allocate(16, 4096))   // 16 blocks of 4 KiB
                .agentName(agentName)                                      // how its peers' messages name it
                .configFields(Map.of("block_size_factor", 4, "dtype", "bfloat16"))  // peers must agree on these
                .transport("loopback")          // or "ucx", "nixl", "auto"; -Dblockxfer.transport=... overrides
                .build();
        return Transports.open(config);
    }
    // @end region="open"

    /**
     * Registers each transport as the other's peer from its encoded descriptor.
     *
     * @param prefill the transport that writes and reads
     * @param decode the transport whose blocks it writes and reads
     */
    // @start region="exchange"
    static void connect(DataTransport prefill, DataTransport decode) {
        byte[] prefillCard = prefill.localDescriptor().encode();   // plain bytes: carry them over your control plane
        byte[] decodeCard = decode.localDescriptor().encode();
        prefill.addPeer("decode-0", PeerDescriptor.decode(decodeCard));    // the peer id is the caller's choice
        decode.addPeer("prefill-0", PeerDescriptor.decode(prefillCard));
    }
    // @end region="exchange"

    /**
     * Writes local block 2, filled with 42, to the peer's block 5, and waits for the write to end.
     *
     * @param prefill a transport with the peer {@code decode-0}
     * @throws InterruptedException if interrupted while waiting
     */
    // @start region="write"
    static void write(DataTransport prefill) throws InterruptedException {
        prefill.region().block(2).fill((byte) 42);           // a block's bytes, as a MemorySegment
        long id = prefill.writeBlocks("decode-0", new int[] {2}, new int[] {5});   // local 2 -> remote 5
        PollResult ended = prefill.poll("decode-0", 15, TimeUnit.SECONDS);   // parks until a transfer ends
        requireDone(ended, id);
    }

    static void requireDone(PollResult ended, long id) {
        if (ended.doneCount() != 1 || ended.doneId(0) != id) {           // the only transfer in flight here
            throw new IllegalStateException("transfer " + id + " did not end done: " + ended);
        }
    }
    // @end region="write"

    /**
     * Reads the peer's block 5 into local block 9 and compares it with block 2, which was written there.
     *
     * @param prefill a transport that ran {@link #write}
     * @throws InterruptedException if interrupted while waiting
     */
    // @start region="read"
    static void readBackAndCompare(DataTransport prefill) throws InterruptedException {
        long id = prefill.readBlocks("decode-0", new int[] {9}, new int[] {5});     // remote 5 -> local 9
        requireDone(prefill.poll("decode-0", 15, TimeUnit.SECONDS), id);
        long at = prefill.region().block(9).mismatch(prefill.region().block(2));   // -1: the same bytes
        if (at != -1) {
            throw new IllegalStateException("block 9 differs from block 2 at byte " + at);
        }
    }
    // @end region="read"

    /**
     * Writes local block 3, filled with 43, to the peer's block 6 and waits on the write's future.
     *
     * @param prefill a transport with the peer {@code decode-0}
     * @throws InterruptedException if interrupted while waiting
     * @throws ExecutionException if the write failed
     * @throws TimeoutException if it did not end within 15 s
     */
    // @start region="future"
    static void writeWithAFuture(DataTransport prefill)
            throws InterruptedException, ExecutionException, TimeoutException {
        prefill.region().block(3).fill((byte) 43);
        TransferFuture write = prefill.writeBlocksAsync("decode-0", new int[] {3}, new int[] {6});
        write.get(15, TimeUnit.SECONDS);    // or thenRun, whenComplete, join; a failure is a TransferFailedException
    }
    // @end region="future"

    /**
     * Writes local block 4, filled with 44, to the peer's block 7 with the message {@code req-42},
     * and lets the peer wait for it.
     *
     * @param prefill a transport with the peer {@code decode-0}
     * @param decode that peer, with the peer {@code prefill-0}
     * @return what the peer learnt: who wrote, the message, and the first byte of its block 7 then
     * @throws InterruptedException if interrupted while waiting
     */
    // @start region="notify"
    static List<String> notifyTheTarget(DataTransport prefill, DataTransport decode) throws InterruptedException {
        prefill.region().block(4).fill((byte) 44);
        long id = prefill.writeBlocks("decode-0", new int[] {4}, new int[] {7}, "req-42".getBytes(US_ASCII));

        // on decode's side: wait for the message; block 7 holds the new bytes before it arrives
        List<String> landed = new ArrayList<>();
        decode.pollNotifications(n -> landed.add(n.sender() + " wrote " + new String(n.payload(), US_ASCII)
                + ", block 7 starts with " + decode.region().block(7).get(ValueLayout.JAVA_BYTE, 0)),
                15, TimeUnit.SECONDS);

        requireDone(prefill.poll("decode-0", 15, TimeUnit.SECONDS), id);   // the writer's report comes as before
        return landed;
    }
    // @end region="notify"

    /**
     * Every step in order on two fresh transports, closed at the end.
     *
     * @return what the decode side learnt from the notification
     * @throws Exception if a step failed
     */
    // @start region="all"
    public static List<String> run() throws Exception {
        try (DataTransport prefill = open("prefill-0");
                DataTransport decode = open("decode-0")) {
            connect(prefill, decode);
            write(prefill);
            readBackAndCompare(prefill);
            writeWithAFuture(prefill);
            return notifyTheTarget(prefill, decode);
        }
    }
    // @end region="all"
}
