package io.blockxfer.tck;

import io.blockxfer.transport.ProgressMode;
import java.util.Collection;
import java.util.EnumSet;
import java.util.Set;

/**
 * Checks that a backend certifies every progress mode it declares: each mode of its
 * {@link TckDeclarations#progressModes()} must be the mode some conformance suite of the backend
 * runs its transports in ({@link ProgressModeHarness}, or {@link ProgressMode#AUTO} for the mode
 * AUTO picks), with every rule: a suite narrowed by {@link TransportConformanceSuite#rules()}
 * certifies no mode. A backend whose targets can live in other processes also needs, in each mode,
 * the rules a second process changes ({@link ConformanceRules#acrossProcesses()}) run with its
 * targets there ({@link TckHarness#targetsInOtherProcesses()}): a stalled or killed target and bytes
 * that cross an address space mean most in that placement, and the one-JVM run skips the stall and
 * kill rules. A backend's own test lists its suites:
 *
 * <pre>{@code
 * List<TransportConformanceSuite> suites = List.of(new MyConformanceTest(),
 *         new MyBackendThreadConformanceTest(), new MyAcrossProcessesConformanceTest(),
 *         new MyBackendThreadAcrossProcessesConformanceTest());
 * assertEquals(Set.of(), ProgressModeCoverage.uncertified(suites));
 * assertEquals(Set.of(), ProgressModeCoverage.uncertifiedAcrossProcesses(suites));
 * }</pre>
 *
 * <p><b>Thread safety:</b> stateless.
 */
public final class ProgressModeCoverage {

    private ProgressModeCoverage() {
    }

    /**
     * The modes the suites' backend declares that none of {@code suites} certifies.
     *
     * @throws IllegalArgumentException if no suite's harness declares its progress modes
     */
    public static Set<ProgressMode> uncertified(Collection<? extends TransportConformanceSuite> suites) {
        EnumSet<ProgressMode> declared = EnumSet.noneOf(ProgressMode.class);
        EnumSet<ProgressMode> certified = EnumSet.noneOf(ProgressMode.class);
        for (TransportConformanceSuite suite : suites) {
            TckHarness harness = suite.harness();
            declared.addAll(harness.declarations().progressModes());
            if (suite.rules().containsAll(EnumSet.allOf(ConformanceRules.class))) {
                harness.declarations().effectiveMode(harness.progressMode()).ifPresent(certified::add);
            }
        }
        if (declared.isEmpty()) {
            throw new IllegalArgumentException("none of the suites' harnesses declares its backend's progress modes"
                    + " (TckDeclarations.progressModes)");
        }
        declared.removeAll(certified);
        return Set.copyOf(declared);
    }

    /**
     * The modes the suites' backend declares in which no suite of {@code suites} runs every rule of
     * {@link ConformanceRules#acrossProcesses()} with its targets in other processes
     * ({@link TckHarness#targetsInOtherProcesses()}); a suite that runs more rules counts too.
     *
     * @throws IllegalArgumentException if no suite's harness declares its backend's progress modes
     */
    public static Set<ProgressMode> uncertifiedAcrossProcesses(
            Collection<? extends TransportConformanceSuite> suites) {
        EnumSet<ProgressMode> declared = EnumSet.noneOf(ProgressMode.class);
        EnumSet<ProgressMode> certified = EnumSet.noneOf(ProgressMode.class);
        for (TransportConformanceSuite suite : suites) {
            TckHarness harness = suite.harness();
            declared.addAll(harness.declarations().progressModes());
            if (harness.targetsInOtherProcesses() && suite.rules().containsAll(ConformanceRules.acrossProcesses())) {
                harness.declarations().effectiveMode(harness.progressMode()).ifPresent(certified::add);
            }
        }
        if (declared.isEmpty()) {
            throw new IllegalArgumentException("none of the suites' harnesses declares its backend's progress modes"
                    + " (TckDeclarations.progressModes)");
        }
        declared.removeAll(certified);
        return Set.copyOf(declared);
    }
}
