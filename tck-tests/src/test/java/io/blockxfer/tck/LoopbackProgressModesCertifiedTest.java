package io.blockxfer.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.blockxfer.transport.ProgressMode;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Every progress mode loopback declares has a conformance suite, and the check can fail. */
class LoopbackProgressModesCertifiedTest {

    @Test
    void everyDeclaredModeHasASuite() {
        assertEquals(Set.of(), ProgressModeCoverage.uncertified(List.of(new LoopbackConformanceTest(),
                new LoopbackCallerMemoryConformanceTest(), new LoopbackBackendThreadConformanceTest())));
    }

    @Test
    void aModeWithoutASuiteIsNamed() {
        assertEquals(Set.of(ProgressMode.BACKEND_THREAD), ProgressModeCoverage.uncertified(List.of(
                new LoopbackConformanceTest())));
        assertEquals(Set.of(ProgressMode.POLLING_THREAD), ProgressModeCoverage.uncertified(List.of(
                new LoopbackBackendThreadConformanceTest())));
    }

    @Test
    void aSuiteNarrowedToSomeRulesCertifiesNoMode() {
        TransportConformanceSuite acrossProcessesOnly = new TransportConformanceSuite() {
            @Override
            protected TckHarness harness() {
                return ProgressModeHarness.of(LoopbackConformanceTest.loopbackHarness(), ProgressMode.BACKEND_THREAD);
            }

            @Override
            protected Set<ConformanceRules> rules() {
                return ConformanceRules.acrossProcesses();
            }
        };
        assertEquals(Set.of(ProgressMode.BACKEND_THREAD), ProgressModeCoverage.uncertified(List.of(
                new LoopbackConformanceTest(), acrossProcessesOnly)));
    }

    @Test
    void theRulesASecondProcessChangesCountOnlyWithTargetsInOtherProcesses() {
        // loopback's suites keep every target in this JVM: no mode is certified across processes
        assertEquals(Set.of(ProgressMode.POLLING_THREAD, ProgressMode.BACKEND_THREAD),
                ProgressModeCoverage.uncertifiedAcrossProcesses(List.of(new LoopbackConformanceTest(),
                        new LoopbackBackendThreadConformanceTest())));
        // what the placement declares is what counts, so a two-process harness is enough to check it
        assertEquals(Set.of(ProgressMode.POLLING_THREAD), ProgressModeCoverage.uncertifiedAcrossProcesses(List.of(
                new LoopbackConformanceTest(), inOtherProcesses(ProgressMode.BACKEND_THREAD,
                        ConformanceRules.acrossProcesses()))));
        EnumSet<ConformanceRules> withoutTheKill = EnumSet.copyOf(ConformanceRules.acrossProcesses());
        withoutTheKill.remove(ConformanceRules.F1);
        assertEquals(Set.of(ProgressMode.POLLING_THREAD, ProgressMode.BACKEND_THREAD),
                ProgressModeCoverage.uncertifiedAcrossProcesses(List.of(new LoopbackConformanceTest(),
                        inOtherProcesses(ProgressMode.BACKEND_THREAD, withoutTheKill))));
        assertEquals(Set.of(), ProgressModeCoverage.uncertifiedAcrossProcesses(List.of(
                inOtherProcesses(ProgressMode.POLLING_THREAD, EnumSet.allOf(ConformanceRules.class)),
                inOtherProcesses(ProgressMode.BACKEND_THREAD, ConformanceRules.acrossProcesses()))));
    }

    private static TransportConformanceSuite inOtherProcesses(ProgressMode mode, Set<ConformanceRules> rules) {
        return new TransportConformanceSuite() {
            @Override
            protected TckHarness harness() {
                return ProgressModeHarness.of(TwoProcessHarness.of(LoopbackConformanceTest.loopbackHarness()), mode);
            }

            @Override
            protected Set<ConformanceRules> rules() {
                return rules;
            }
        };
    }

    @Test
    void suitesWithoutDeclaredModesCannotBeChecked() {
        TransportConformanceSuite undeclared = new TransportConformanceSuite() {
            @Override
            protected TckHarness harness() {
                return InJvmHarness.of("loopback");
            }
        };
        assertThrows(IllegalArgumentException.class, () -> ProgressModeCoverage.uncertified(List.of(undeclared)));
    }
}
