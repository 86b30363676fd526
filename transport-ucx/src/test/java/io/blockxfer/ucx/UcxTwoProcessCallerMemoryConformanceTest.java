package io.blockxfer.ucx;

import io.blockxfer.tck.ConformanceRules;
import io.blockxfer.tck.TckHarness;
import io.blockxfer.tck.TransportConformanceSuite;
import io.blockxfer.tck.TwoProcessHarness;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Tag;

/**
 * The rules a target in another process changes ({@link ConformanceRules#acrossProcesses()}) on UCX
 * with targets in child JVMs and every region in caller memory (RMA emulated with messages), the
 * bytes crossing address spaces on that path; the whole kit runs on that path in one JVM
 * ({@link UcxCallerMemoryConformanceTest}).
 */
// full tier: the two-process placement in caller memory (RMA emulated with messages); the fast tier certifies
// two processes in backend memory, for the rules a second process changes (UcxAcrossProcessesConformanceTest),
// and the full tier the whole kit in caller memory in one JVM (UcxCallerMemoryConformanceTest)
@Tag("full")
class UcxTwoProcessCallerMemoryConformanceTest extends TransportConformanceSuite {

    @Override
    protected TckHarness harness() {
        return TwoProcessHarness.of(UcxTck.inJvm().withCallerMemory())
                .withJvmArgs(List.of("-Djava.io.tmpdir=" + ChildTemp.directory()));
    }

    @Override
    protected Set<ConformanceRules> rules() {
        return ConformanceRules.acrossProcesses();
    }

    /**
     * docs/native-backends.md, UCX backend, "A jammed receive queue": a peer SIGKILLed while writing a message into
     * this process's shared-memory receive FIFO leaves a slot UCX never reads past, and transfers UCX
     * emulates with messages (caller memory on one host) to every other peer stall until the
     * transport is reopened. F1 kills a peer and then checks that another one is unaffected.
     */
    @Override
    protected Map<ConformanceRules, String> knownViolations() {
        return Map.of(ConformanceRules.F1, "UCX 1.18 shared memory: a peer killed mid-message can jam the receive"
                + " FIFO that message-emulated RMA to every other peer needs (docs/native-backends.md, UCX backend)");
    }
}
