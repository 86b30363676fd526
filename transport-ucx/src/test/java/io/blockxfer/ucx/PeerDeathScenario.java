package io.blockxfer.ucx;

import io.blockxfer.tck.BlockPattern;
import io.blockxfer.tck.InJvmHarness;
import io.blockxfer.tck.TargetPeer;
import io.blockxfer.tck.TwoProcessHarness;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.ucx.internal.UcxLogLines;
import java.lang.foreign.Arena;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The peer-death scenario, run by {@link UcxPeerDeathTest} in a child JVM so that its exit status
 * and its whole stderr (UCX's native log included) can be judged: an initiator streams WRITEs to two
 * target processes, SIGKILLs one of them mid-stream, and keeps streaming to both. Prints one
 * {@code RESULT key=value ...} line. The dying peer also gets READs, which UCX issues on an endpoint
 * of their own.
 *
 * <p><b>Thread safety:</b> a program; single-threaded apart from the harness.
 */
public final class PeerDeathScenario {

    private static final int BLOCKS = 64;
    private static final long BLOCK_LENGTH = 64 * 1024;
    private static final int WINDOW = 16;
    /** WRITEs send local blocks 0-31; READs (to the peer that dies) fill local blocks 32-63. */
    private static final int WRITTEN = 32;
    private static final long LOCAL = 1;

    private PeerDeathScenario() {
    }

    /**
     * Runs the scenario: {@code [killAfterMillis [runAfterKillMillis [caller [frozenMillis]]]]};
     * {@code caller} gives the peer that dies a region in caller memory, whose transfers UCX carries
     * out with requests (a UCX-allocated region is written and read through shared memory, which
     * needs no request of the peer); {@code frozenMillis} freezes that peer (SIGSTOP) that long
     * before the kill, so that its requests are still waiting in UCX when it dies.
     */
    public static void main(String[] args) throws Exception {
        long killAfter = args.length > 0 ? Long.parseLong(args[0]) : 1000;
        long runAfterKill = args.length > 1 ? Long.parseLong(args[1]) : 3000;
        boolean callerMemory = args.length > 2 && args[2].equals("caller");
        long frozenBeforeKill = args.length > 3 ? Long.parseLong(args[3]) : 0;
        TransportConfig config = TransportConfig.builder(RegionSpec.allocate(BLOCKS, BLOCK_LENGTH))
                .agentName("death-initiator").transferTimeout(Duration.ofSeconds(30)).build();
        TransportConfig dyingConfig = !callerMemory ? config
                : TransportConfig.builder(RegionSpec.wrap(Arena.global().allocate(BLOCKS * BLOCK_LENGTH, 4096),
                        BLOCK_LENGTH)).agentName("death-initiator").transferTimeout(Duration.ofSeconds(30)).build();
        TwoProcessHarness harness = TwoProcessHarness.of(InJvmHarness.of(UcxProvider.NAME))
                .withJvmArgs(List.of("-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir")));
        try (DataTransport t = new UcxProvider().open(config);
                TargetPeer a = harness.openTarget(dyingConfig);
                TargetPeer b = harness.openTarget(config)) {
            for (int i = 0; i < BLOCKS; i++) {
                BlockPattern.fill(t.region().block(i), BlockPattern.seed(LOCAL, i));
            }
            t.addPeer("a", a.descriptor());
            t.addPeer("b", b.descriptor());
            Stream sa = new Stream(t, "a", true);
            Stream sb = new Stream(t, "b", false);
            long start = System.nanoTime();
            long killAt = 0;
            long frozenAt = 0;
            while (true) {
                long now = System.nanoTime();
                if (frozenBeforeKill > 0 && frozenAt == 0 && now - start > (killAfter - frozenBeforeKill) * 1_000_000) {
                    frozenAt = now;
                    a.stall(true);
                }
                if (killAt == 0 && now - start > killAfter * 1_000_000) {
                    killAt = System.nanoTime();
                    sa.killAt = killAt;
                    a.kill();
                }
                if (killAt != 0 && now - killAt > runAfterKill * 1_000_000) {
                    break;
                }
                sa.step();
                sb.step();
            }
            long drainEnd = System.nanoTime() + 5_000_000_000L;
            while ((sa.pending() > 0 || sb.pending() > 0) && System.nanoTime() < drainEnd) {
                sa.poll();
                sb.poll();
            }
            int mismatched = 0;
            for (int i = 0; i < WRITTEN; i++) {
                if (b.firstMismatch(i, BlockPattern.seed(LOCAL, i)) >= 0) {
                    mismatched++;
                }
            }
            System.out.println("RESULT"
                    + " detectMs=" + (sa.firstFailureAt == 0 ? -1 : (sa.firstFailureAt - killAt) / 1_000_000)
                    + " lastInFlightEndMs=" + (sa.lastInFlightEnd == 0 ? -1 : (sa.lastInFlightEnd - killAt) / 1_000_000)
                    + " aInFlightAtKill=" + sa.inFlightAtKill
                    + " aSubmitted=" + sa.submitted + " aDone=" + sa.done + " aFailed=" + sa.failed
                    + " aDoneAfterKill=" + sa.doneAfterKill + " aNotSubmitted=" + sa.notSubmitted
                    + " aPending=" + sa.pending()
                    + " bSubmitted=" + sb.submitted + " bDone=" + sb.done + " bFailed=" + sb.failed
                    + " bPending=" + sb.pending() + " bMismatchedBlocks=" + mismatched
                    + " jucxLinesDropped=" + UcxLogLines.dropped());
        }
    }

    /** A window of transfers to one peer (WRITEs, and READs too if asked), with the outcome of each. */
    private static final class Stream {
        private final DataTransport t;
        private final String peer;
        private final boolean reads;
        private final Map<Long, Long> submittedAt = new HashMap<>();
        private final int[] local = new int[4];
        private final int[] remote = new int[4];
        private int next;
        long killAt;
        long firstFailureAt;
        long lastInFlightEnd;
        int inFlightAtKill = -1;
        int submitted;
        int done;
        int failed;
        int doneAfterKill;
        int notSubmitted;

        Stream(DataTransport t, String peer, boolean reads) {
            this.t = t;
            this.peer = peer;
            this.reads = reads;
        }

        int pending() {
            return submittedAt.size();
        }

        void step() {
            if (killAt != 0 && inFlightAtKill < 0) {
                inFlightAtKill = submittedAt.size();
            }
            while (submittedAt.size() < WINDOW) {
                boolean read = reads && next % 2 == 1;
                for (int k = 0; k < 4; k++) {
                    int block = (read ? WRITTEN : 0) + (next % 8) + 8 * k; // stride 8: four puts (gets) each
                    local[k] = block;
                    remote[k] = block;
                }
                next++;
                long id = read ? t.readBlocks(peer, local, remote) : t.writeBlocks(peer, local, remote);
                if (id == DataTransport.NOT_SUBMITTED) {
                    notSubmitted++;
                    break;
                }
                submitted++;
                submittedAt.put(id, System.nanoTime());
            }
            poll();
        }

        void poll() {
            PollResult r = t.poll(peer);
            long now = System.nanoTime();
            for (int i = 0; i < r.doneCount(); i++) {
                long at = submittedAt.remove(r.doneId(i));
                done++;
                if (killAt != 0 && now > killAt) {
                    doneAfterKill++;
                    if (at < killAt) {
                        lastInFlightEnd = Math.max(lastInFlightEnd, now);
                    }
                }
            }
            for (int i = 0; i < r.failedCount(); i++) {
                long at = submittedAt.remove(r.failedId(i));
                failed++;
                if (killAt != 0 && firstFailureAt == 0) {
                    firstFailureAt = now;
                }
                if (killAt != 0 && at < killAt) {
                    lastInFlightEnd = Math.max(lastInFlightEnd, now);
                }
            }
        }
    }
}
