package io.blockxfer.tck;

import io.blockxfer.transport.Capability;
import java.util.Objects;
import org.junit.jupiter.api.Assumptions;

/**
 * The base of the suite's rule groups: gives each rule the fixture its suite opened for it, and
 * the skips every group shares.
 *
 * <p><b>Thread safety:</b> JUnit makes one instance per rule; not shared.
 */
abstract class RuleGroup {

    private final TransportConformanceSuite suite;

    RuleGroup(TransportConformanceSuite suite) {
        this.suite = Objects.requireNonNull(suite, "suite");
    }

    /** The fixture of the running rule. */
    final Fixture fx() {
        return suite.fixture();
    }

    /** Skips the rule, with the reason, unless the backend declares {@code capability}. */
    final void require(Capability capability) {
        Fixture fx = fx();
        Assumptions.assumeTrue(fx.has(capability),
                () -> fx.msg("skipped: the backend does not declare " + capability));
    }

    /** Skips the rule, with the reason, unless the harness can stall {@code target}. */
    final void requireStall(TargetPeer target) {
        Fixture fx = fx();
        Assumptions.assumeTrue(target.canStall(), () -> fx.msg("skipped: targets cannot be stalled in this harness"
                + " (in one JVM, stalling needs FAULT_INJECTION or a stall hook; two-process targets can always be"
                + " frozen)"));
    }
}
