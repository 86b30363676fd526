package io.blockxfer.tck.holds;

import java.util.Objects;

/**
 * The base of the hold suite's rule groups: gives each rule the fixture its suite opened.
 *
 * <p><b>Thread safety:</b> JUnit makes one instance per rule; not shared.
 */
abstract class HoldRuleGroup {

    private final HoldConformanceSuite suite;

    HoldRuleGroup(HoldConformanceSuite suite) {
        this.suite = Objects.requireNonNull(suite, "suite");
    }

    /** The fixture of the running rule. */
    final HoldFixture fx() {
        return suite.fixture();
    }

    /** The fixture with its standard pair opened. */
    final HoldFixture pair() {
        HoldFixture f = suite.fixture();
        f.openPair();
        return f;
    }
}
