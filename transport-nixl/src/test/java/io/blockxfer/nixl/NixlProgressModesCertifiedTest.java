package io.blockxfer.nixl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.blockxfer.tck.ProgressModeCoverage;
import io.blockxfer.tck.TransportConformanceSuite;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Every progress mode NIXL declares ({@link NixlTck#DECLARATIONS}) has a suite of the whole kit, and a
 * suite of the rules a second process changes with its targets in other processes.
 */
class NixlProgressModesCertifiedTest {

    private static final List<TransportConformanceSuite> SUITES = List.of(new NixlConformanceTest(),
            new NixlBackendThreadConformanceTest(), new NixlCallerMemoryConformanceTest(),
            new NixlAcrossProcessesConformanceTest(), new NixlTwoProcessBackendThreadConformanceTest(),
            new NixlTwoProcessCallerMemoryConformanceTest());

    @Test
    void everyDeclaredModeHasASuite() {
        assertEquals(Set.of(), ProgressModeCoverage.uncertified(SUITES));
    }

    @Test
    void everyDeclaredModeRunsTheRulesASecondProcessChangesAcrossProcesses() {
        assertEquals(Set.of(), ProgressModeCoverage.uncertifiedAcrossProcesses(SUITES));
    }
}
