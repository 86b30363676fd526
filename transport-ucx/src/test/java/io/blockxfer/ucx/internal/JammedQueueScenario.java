package io.blockxfer.ucx.internal;

import io.blockxfer.tck.BlockPattern;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.ucx.UcxOptions;
import io.blockxfer.ucx.UcxProvider;
import java.lang.foreign.Arena;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The state a SIGKILLed peer can leave behind, run by {@link UcxJammedReceiveQueueTest} in a child
 * JVM so that UCX's own log and a crash can be judged: an initiator whose shared-memory receive
 * queue is jammed ({@link ReceiveQueueJam}) keeps reading and writing its peers' UCX-allocated
 * regions, a peer added afterwards too, while a READ of a peer in caller memory, which UCX serves
 * through that queue, stalls (the proof that the queue is jammed). Then everything closes, the
 * caller-memory peer with its replies still queued towards the jammed initiator. Prints one
 * {@code RESULT key=value ...} line.
 *
 * <p><b>Thread safety:</b> a program; single-threaded.
 */
public final class JammedQueueScenario {

    private static final int BLOCKS = 16;
    private static final long BLOCK = 64 * 1024;
    private static final long TARGET = 7;
    private static final long LOCAL = 3;

    private JammedQueueScenario() {
    }

    /** Runs the scenario. */
    public static void main(String[] args) throws Exception {
        Map<String, Object> result = new LinkedHashMap<>();
        Arena arena = Arena.ofShared();
        DataTransport a = open("jam-a", RegionSpec.allocate(BLOCKS, BLOCK), Duration.ofSeconds(10));
        DataTransport c = open("jam-c", RegionSpec.wrap(arena.allocate(BLOCKS * BLOCK, 4096), BLOCK),
                Duration.ofSeconds(10));
        DataTransport i = open("jam-i", RegionSpec.allocate(BLOCKS, BLOCK), Duration.ofSeconds(3));
        DataTransport b = null;
        try {
            for (DataTransport t : new DataTransport[] {a, c}) {
                for (int k = 0; k < BLOCKS; k++) {
                    BlockPattern.fill(t.region().block(k), BlockPattern.seed(TARGET, k));
                }
            }
            for (int k = 0; k < BLOCKS; k++) {
                BlockPattern.fill(i.region().block(k), BlockPattern.seed(LOCAL, k));
            }
            i.addPeer("a", a.localDescriptor());
            i.addPeer("c", c.localDescriptor());
            result.put("readABefore", read(i, "a", 0, 1, Duration.ofSeconds(10)));
            result.put("readCBefore", read(i, "c", 1, 2, Duration.ofSeconds(10)));

            result.put("jammed", ReceiveQueueJam.jam(UcxMetadata.decode("jam-i", i.agentMetadata())));

            // served by UCX through the jammed queue: it must not complete
            result.put("readCAfter", read(i, "c", 2, 3, Duration.ofMillis(1500)));
            result.put("readAAfter", read(i, "a", 3, 4, Duration.ofSeconds(10)));
            result.put("writeAAfter", write(i, a, "a", 4, 5));
            b = open("jam-b", RegionSpec.allocate(BLOCKS, BLOCK), Duration.ofSeconds(10));
            for (int k = 0; k < BLOCKS; k++) {
                BlockPattern.fill(b.region().block(k), BlockPattern.seed(TARGET, k));
            }
            i.addPeer("b", b.localDescriptor());
            result.put("readBAfter", read(i, "b", 5, 6, Duration.ofSeconds(10)));
            result.put("writeBAfter", write(i, b, "b", 6, 7));
        } finally {
            i.close();
            a.close();
            if (b != null) {
                b.close();
            }
            c.close();
        }
        StringBuilder line = new StringBuilder("RESULT");
        result.forEach((k, v) -> line.append(' ').append(k).append('=').append(v));
        System.out.println(line);
    }

    private static DataTransport open(String name, RegionSpec region, Duration timeout) {
        return new UcxProvider().open(TransportConfig.builder(region).agentName(name).transferTimeout(timeout)
                .closeTimeout(Duration.ofSeconds(2)).option(UcxOptions.TLS, "sm,self").build());
    }

    /** "done" (bytes verified), "wrong", "failed" or "pending" after {@code wait}. */
    private static String read(DataTransport i, String peer, int local, int remote, Duration wait) {
        String outcome = await(i, peer, i.readBlocks(peer, new int[] {local}, new int[] {remote}), wait);
        if (outcome.equals("done") && BlockPattern.firstMismatch(i.region().block(local),
                BlockPattern.seed(TARGET, remote)) >= 0) {
            return "wrong";
        }
        return outcome;
    }

    private static String write(DataTransport i, DataTransport target, String peer, int local, int remote) {
        String outcome = await(i, peer, i.writeBlocks(peer, new int[] {local}, new int[] {remote}),
                Duration.ofSeconds(10));
        if (outcome.equals("done") && BlockPattern.firstMismatch(target.region().block(remote),
                BlockPattern.seed(LOCAL, local)) >= 0) {
            return "wrong";
        }
        return outcome;
    }

    private static String await(DataTransport i, String peer, long id, Duration wait) {
        long end = System.nanoTime() + wait.toNanos();
        while (System.nanoTime() < end) {
            PollResult r = i.poll(peer);
            for (int k = 0; k < r.doneCount(); k++) {
                if (r.doneId(k) == id) {
                    return "done";
                }
            }
            for (int k = 0; k < r.failedCount(); k++) {
                if (r.failedId(k) == id) {
                    return "failed";
                }
            }
            Thread.onSpinWait();
        }
        return "pending";
    }
}
