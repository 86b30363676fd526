package io.blockxfer.tck.holds;

import io.blockxfer.tck.TckEnvironment;
import io.blockxfer.tck.TckHarness;
import io.blockxfer.transport.Capability;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The holds conformance kit: {@code transport-holds} over a backend, checked end to end. A backend
 * that carries notifications runs it with a one-method subclass, in one JVM or, so that a holder
 * can be SIGKILLed in another process (H9), with a {@link io.blockxfer.tck.TwoProcessHarness}:
 *
 * <pre>{@code
 * class UcxHoldConformanceTest extends HoldConformanceSuite {
 *     protected TckHarness harness() { return TwoProcessHarness.of(InJvmHarness.of("ucx")); }
 * }
 * }</pre>
 *
 * <p>The rules come in three {@link Nested} groups: H1-H4, the hand-offs (pull, release after the
 * last transfer, push, cancel); H5-H9, time (renewals, expiry, delayed renewals, a read ending
 * late, a holder that dies); H10-H14, ends (exactly once, close, removed peers, other peers, bad
 * arguments). Every rule has an id shown in its display name ({@code [H5] (required) ...}) and in
 * every assertion message; {@link HoldRules} explains each. Rule methods are final. All but H9 run
 * on manual clocks ({@link io.blockxfer.holds.ManualHoldClock}): a bound is checked to the
 * millisecond, not raced. A backend without {@link Capability#NOTIFICATIONS} skips every rule with
 * the reason, and one without {@link Capability#READ} the rules that read. Settings (time limits,
 * rule selection with {@code blockxfer.tck.rules}, {@code blockxfer.tck.require}) come from
 * {@link TckEnvironment}.
 *
 * <p><b>Thread safety:</b> JUnit creates one instance per rule; instances are not shared.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
@DisplayNameGeneration(HoldRuleNames.class)
@ExtendWith(HoldRuleFailures.class)
public abstract class HoldConformanceSuite {

    private final TckEnvironment env = TckEnvironment.fromSystem();
    private volatile @Nullable HoldFixture fx;
    private volatile String description = "?";

    /** For subclasses. */
    protected HoldConformanceSuite() {
    }

    /** The harness that opens the backend's transports (both in this JVM; a holder in another process for H9 where it places targets there). */
    protected abstract TckHarness harness();

    /**
     * Extra JVM arguments for the holder process H9 starts where the harness places peers in other
     * processes (a private {@code java.io.tmpdir}, say); none by default.
     */
    protected List<String> holderJvmArgs() {
        return List.of();
    }

    /** What the kit's own tests break on purpose; nothing otherwise. */
    HoldBreakage breakage() {
        return HoldBreakage.NONE;
    }

    @BeforeEach
    final void openFixture(TestInfo info) {
        HoldRuleTest annotation = info.getTestMethod().map(m -> m.getAnnotation(HoldRuleTest.class))
                .orElseThrow(() -> new AssertionError("[?] " + info.getDisplayName() + ": every test of the hold"
                        + " suite must be a rule declared with @HoldRuleTest and an entry of HoldRules"));
        HoldRules rule = annotation.value();
        String id = rule.name();
        Assumptions.assumeTrue(env.selects(id), () -> "[" + id + "] not selected by blockxfer.tck.rules");
        TckHarness h = harness();
        description = h.backend() + " (" + h.mode() + ")";
        if (!h.availability().isAvailable()) {
            String why = "[" + id + "] " + h.backend() + " is unavailable: " + h.availability().cause();
            if (env.requires(h.backend())) {
                throw new AssertionError(why + " (required by blockxfer.tck.require)",
                        h.availability().error().orElse(null));
            }
            Assumptions.abort(why);
        }
        Assumptions.assumeTrue(h.capabilities().contains(Capability.NOTIFICATIONS), () -> "[" + id + "] "
                + description + ": skipped: the backend carries no notifications (Capability.NOTIFICATIONS), which"
                + " holds travel in");
        if (rule.reads()) {
            Assumptions.assumeTrue(h.capabilities().contains(Capability.READ), () -> "[" + id + "] " + description
                    + ": skipped: the backend cannot read (Capability.READ)");
        }
        fx = new HoldFixture(h, env, rule, breakage(), holderJvmArgs());
    }

    @AfterEach
    final void closeFixture() {
        HoldFixture f = fx;
        fx = null;
        if (f != null) {
            f.close();
        }
    }

    /** The fixture of the running rule. */
    final HoldFixture fixture() {
        HoldFixture f = fx;
        if (f == null) {
            throw new IllegalStateException("no rule is running");
        }
        return f;
    }

    /** The backend and placement, for messages. */
    final String describe() {
        return description;
    }

    /** H1-H4: the hand-offs. <b>Thread safety:</b> one instance per rule, as the suite's. */
    @Nested
    public final class HandOffs extends HandOffRules {
        /** For JUnit. */
        public HandOffs() {
            super(HoldConformanceSuite.this);
        }
    }

    /** H5-H9: renewals, expiries and deadlines. <b>Thread safety:</b> one instance per rule. */
    @Nested
    public final class Times extends TimeRules {
        /** For JUnit. */
        public Times() {
            super(HoldConformanceSuite.this);
        }
    }

    /** H10-H14: how holds end. <b>Thread safety:</b> one instance per rule. */
    @Nested
    public final class Ends extends EndRules {
        /** For JUnit. */
        public Ends() {
            super(HoldConformanceSuite.this);
        }
    }
}
