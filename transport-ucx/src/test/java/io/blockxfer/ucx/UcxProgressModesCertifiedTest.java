package io.blockxfer.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.blockxfer.tck.ProgressModeCoverage;
import io.blockxfer.tck.TransportConformanceSuite;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Every progress mode UCX declares ({@link UcxTck#DECLARATIONS}) has a suite of the whole kit, and a
 * suite of the rules a second process changes with its targets in other processes.
 */
class UcxProgressModesCertifiedTest {

    private static final List<TransportConformanceSuite> SUITES = List.of(new UcxConformanceTest(),
            new UcxBackendThreadConformanceTest(), new UcxCallerMemoryConformanceTest(),
            new UcxAcrossProcessesConformanceTest(), new UcxTwoProcessConformanceTest(),
            new UcxTwoProcessCallerMemoryConformanceTest());

    @Test
    void everyDeclaredModeHasASuite() {
        assertEquals(Set.of(), ProgressModeCoverage.uncertified(SUITES));
    }

    @Test
    void everyDeclaredModeRunsTheRulesASecondProcessChangesAcrossProcesses() {
        assertEquals(Set.of(), ProgressModeCoverage.uncertifiedAcrossProcesses(SUITES));
    }
}
