package io.blockxfer.examples;

import io.blockxfer.tck.InJvmHarness;
import io.blockxfer.tck.ProgressModeHarness;
import io.blockxfer.tck.TckDeclarations;
import io.blockxfer.tck.TckHarness;
import io.blockxfer.tck.TransportConformanceSuite;
import io.blockxfer.tck.TwoProcessHarness;
import io.blockxfer.transport.ProgressMode;
import java.time.Duration;
import java.util.List;

/**
 * docs/certifying-a-backend.md: the conformance suites a backend named {@code mine} writes, one
 * per placement and mode, and the promises it declares to the kit. Stateless.
 */
public final class CertifyingABackend {

    private CertifyingABackend() {
    }

    /**
     * The suites, as a backend's test sources declare them (there as top-level classes).
     *
     * @return their classes
     */
    public static List<Class<? extends TransportConformanceSuite>> suites() {
        // @start region="suites"
        class MyConformanceTest extends TransportConformanceSuite {
            @Override protected TckHarness harness() { return InJvmHarness.of("mine"); }
        }
        class MyTwoProcessConformanceTest extends TransportConformanceSuite {          // CROSS_PROCESS
            @Override protected TckHarness harness() { return TwoProcessHarness.of(InJvmHarness.of("mine")); }
        }
        class MyCallerMemoryConformanceTest extends TransportConformanceSuite {        // CALLER_REGION
            @Override protected TckHarness harness() { return InJvmHarness.of("mine").withCallerMemory(); }
        }
        class MyBackendThreadConformanceTest extends TransportConformanceSuite {       // each progress mode
            @Override protected TckHarness harness() {
                return ProgressModeHarness.of(InJvmHarness.of("mine"), ProgressMode.BACKEND_THREAD);
            }
        }
        // @end region="suites"
        return List.of(MyConformanceTest.class, MyTwoProcessConformanceTest.class,
                MyCallerMemoryConformanceTest.class, MyBackendThreadConformanceTest.class);
    }

    /**
     * The harness of a backend that declares its progress modes, its polling bound and its queue.
     *
     * @return the harness
     */
    public static InJvmHarness declared() {
        // @start region="declarations"
        TckDeclarations declared = TckDeclarations.none()
                .progressModes(ProgressMode.POLLING_THREAD, ProgressMode.BACKEND_THREAD) // AUTO picks the first
                .pollingThreadBound(Duration.ofMillis(20))      // T1: polls alone end a one-block transfer within it
                .queueCapacity(1 << 16, Duration.ofSeconds(5));  // T2: the queue, and the longest a submit waits for room
        InJvmHarness harness = InJvmHarness.of("mine").withDeclarations(declared).withEngineFaults();
        // @end region="declarations"
        return harness;
    }
}
