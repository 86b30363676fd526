package io.blockxfer.nixl;

import io.blockxfer.tck.InJvmHarness;
import io.blockxfer.tck.TckDeclarations;
import io.blockxfer.transport.ProgressMode;
import java.time.Duration;

/**
 * How the NIXL backend's conformance suites open it: with what it declares for the kit's rules
 * about its promises, and with the kit's engine faults (NIXL has no fault injection of its own, so
 * these make the rules that hold transfers in flight or fail submits natively run for it).
 *
 * <p><b>Thread safety:</b> stateless.
 */
final class NixlTck {

    /**
     * NIXL's status call progresses the worker, so polls drive in the polling-thread mode (what
     * AUTO picks), where the progress thread looks in only every 100 ms: the 20 ms bound fails a
     * backend that leaves the work to it. Every submit posts to NIXL directly (no queue of the
     * backend's own: capacity 0), so T2 checks 1,024 transfers in flight to a frozen target.
     */
    static final TckDeclarations DECLARATIONS = TckDeclarations.none()
            .progressModes(ProgressMode.POLLING_THREAD, ProgressMode.BACKEND_THREAD)
            .pollingThreadBound(Duration.ofMillis(20))
            .pollsWorkInStatus() // get_xfer_status progresses the UCX worker; progress() only drains messages
            .queueCapacity(0, Duration.ofSeconds(5));

    private NixlTck() {
    }

    /** The NIXL harness of every suite: initiators and targets in this JVM, with the declarations and faults. */
    static InJvmHarness inJvm() {
        return InJvmHarness.of(NixlProvider.NAME).withDeclarations(DECLARATIONS).withEngineFaults();
    }
}
