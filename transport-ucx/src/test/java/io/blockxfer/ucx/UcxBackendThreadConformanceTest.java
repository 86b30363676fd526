package io.blockxfer.ucx;

import io.blockxfer.tck.ProgressModeHarness;
import io.blockxfer.tck.TckHarness;
import io.blockxfer.tck.TransportConformanceSuite;
import io.blockxfer.transport.ProgressMode;
import org.junit.jupiter.api.Tag;

// @start region="full-tier"
/**
 * The UCX backend, certified by the whole kit in this JVM with only its progress thread driving
 * the worker ({@link ProgressMode#BACKEND_THREAD}).
 */
// full tier: the non-default progress mode (BACKEND_THREAD) in this JVM; the fast tier certifies the default
// mode in this JVM, and this mode in two processes for the rules a second process changes
// (UcxAcrossProcessesConformanceTest)
@Tag("full")
class UcxBackendThreadConformanceTest extends TransportConformanceSuite {
    // @end region="full-tier"

    @Override
    protected TckHarness harness() {
        return ProgressModeHarness.of(UcxTck.inJvm(), ProgressMode.BACKEND_THREAD);
    }
}
