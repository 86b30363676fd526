package io.blockxfer.tck.directory;

import java.util.Objects;
import org.junit.jupiter.api.Assumptions;

/**
 * The base of the directory suite's rule groups: gives each rule the fixture its suite opened.
 *
 * <p><b>Thread safety:</b> JUnit makes one instance per rule; not shared.
 */
abstract class DirectoryRuleGroup {

    private final DirectoryConformanceSuite suite;

    DirectoryRuleGroup(DirectoryConformanceSuite suite) {
        this.suite = Objects.requireNonNull(suite, "suite");
    }

    /** The fixture of the running rule. */
    final DirectoryFixture fx() {
        return suite.fixture();
    }

    /** Skips the rule, with the reason, unless the deployment can cause {@code fault} (besides the rule's own). */
    final void require(DirectoryFault fault) {
        DirectoryFixture fx = fx();
        Assumptions.assumeTrue(fx.deployment.faults().contains(fault),
                () -> fx.msg("skipped: the deployment cannot cause " + fault));
    }
}
