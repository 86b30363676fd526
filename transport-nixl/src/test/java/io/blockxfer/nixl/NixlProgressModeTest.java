package io.blockxfer.nixl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.blockxfer.transport.CompletionHandler;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.ProgressMode;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * NIXL's status call progresses the UCX worker itself, so a spinning caller's polls do the copies
 * of its transfers. In the polling-thread mode (the default) NIXL's own progress thread must then
 * stay out of the worker instead of competing with that caller for it and for a core: before this
 * mode existed, the thread looked in every millisecond, stayed while transfers followed each other,
 * and spun on UCX's spinlock against the polling thread, a quarter of a core beside a caller
 * copying 64 x 256 KiB transfers (and half of the caller's speed lost under a CPU hog).
 */
// full tier: it accounts for the whole process's CPU against the caller's, so it needs the machine to itself,
// as the full tier's one test JVM at a time gives it; beside other load it fails
@Tag("full")
class NixlProgressModeTest implements CompletionHandler {

    private static final int BLOCKS = 64;
    private static final long BLOCK = 256 * 1024;

    private int done;
    private int failed;

    @BeforeEach
    void nixl() {
        NixlTests.assumeNixl();
    }

    @Override
    public void onTerminal(long transferId, boolean success) {
        if (success) {
            done++;
        } else {
            failed++;
        }
    }

    private void oneTransfer(DataTransport initiator, int[] blocks) {
        initiator.writeBlocks("t", blocks, blocks);
        int before = done + failed;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (done + failed == before && System.nanoTime() < deadline) {
            initiator.poll("t", this);
        }
        assertEquals(before + 1, done + failed, "a transfer got no report within 30 s");
    }

    @Test
    void theProgressThreadStaysOutWhilePollsCopy() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isCurrentThreadCpuTimeSupported()
                && ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean,
                "this JVM does not measure thread and process CPU time");
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        int[] all = new int[BLOCKS];
        Arrays.setAll(all, i -> i);
        try (DataTransport target = NixlTests.open(NixlTests.config("progress-target", BLOCKS, BLOCK)
                        .progressMode(ProgressMode.POLLING_THREAD).build());
                DataTransport initiator = NixlTests.open(NixlTests.config("progress-initiator", BLOCKS, BLOCK)
                        .progressMode(ProgressMode.POLLING_THREAD).build())) {
            initiator.addPeer("t", target.localDescriptor());
            for (int i = 0; i < 200; i++) { // warm-up, so that the compiler threads are done
                oneTransfer(initiator, all);
            }
            done = 0;
            long processBefore = os.getProcessCpuTime();
            long callerBefore = threads.getCurrentThreadCpuTime();
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            while (System.nanoTime() < end || done < 100) {
                oneTransfer(initiator, all);
            }
            long caller = threads.getCurrentThreadCpuTime() - callerBefore;
            long others = os.getProcessCpuTime() - processBefore - caller;
            assertEquals(0, failed, "failed transfers");
            assertTrue(others < caller / 10, "the other threads (NIXL's progress threads) used " + others / 1_000_000
                    + " ms of CPU while the polling thread copied " + done + " transfers of 64 x 256 KiB in "
                    + caller / 1_000_000 + " ms: the progress thread competed with the polls");
            System.out.printf("nixl, polls copying: other threads %.1f ms of CPU against the caller's %.1f ms%n",
                    others / 1e6, caller / 1e6);
        }
    }
}
