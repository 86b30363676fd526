package io.blockxfer.ucx;

import io.blockxfer.tck.InJvmHarness;
import io.blockxfer.tck.TckDeclarations;
import io.blockxfer.transport.ProgressMode;
import java.time.Duration;

/**
 * How the UCX backend's conformance suites open it: with what it declares for the kit's rules
 * about its promises, and with the kit's engine faults (UCX has no fault injection of its own, so
 * these make the rules that hold transfers in flight or fail submits natively run for it).
 *
 * <p><b>Thread safety:</b> stateless.
 */
final class UcxTck {

    /**
     * Polls drive the worker in the polling-thread mode (what AUTO picks), the progress thread
     * alone in the backend-thread mode; the submit ring holds 65,536 commands
     * ({@code ProgressLoop.QUEUE_CAPACITY}), and a submit finding it full waits at most 5 s
     * ({@code ProgressLoop.QUEUE_FULL_WAIT_MILLIS}).
     */
    static final TckDeclarations DECLARATIONS = TckDeclarations.none()
            .progressModes(ProgressMode.POLLING_THREAD, ProgressMode.BACKEND_THREAD)
            .pollingThreadBound(Duration.ofMillis(20))
            .queueCapacity(1 << 16, Duration.ofSeconds(5));

    private UcxTck() {
    }

    /** The UCX harness of every suite: initiators and targets in this JVM, with the declarations and faults. */
    static InJvmHarness inJvm() {
        return InJvmHarness.of(UcxProvider.NAME).withDeclarations(DECLARATIONS).withEngineFaults();
    }
}
