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
 * certifies no mode. A backend's own test lists its suites:
 *
 * <pre>{@code
 * assertEquals(Set.of(), ProgressModeCoverage.uncertified(List.of(new MyConformanceTest(),
 *         new MyBackendThreadConformanceTest())));
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
}
