package io.blockxfer.tck;

import static org.junit.jupiter.api.Assertions.fail;

import io.blockxfer.transport.Capability;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
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
 * The blockxfer conformance kit. A backend certifies itself with a one-line subclass:
 *
 * <pre>{@code
 * class UcxConformanceTest extends TransportConformanceSuite {
 *     protected TckHarness harness() { return InJvmHarness.of("ucx"); }
 * }
 * }</pre>
 *
 * <p>The rules come in {@link Nested} groups by area, one group per {@link ConformanceRules.Area}
 * (geometry, peers, writes, reads, completions, cancels, failures, descriptors, keys, timeliness,
 * lifecycle, concurrency, waits and futures, notifications). Every rule has an id shown in its display name with its class
 * ({@code [W2] (required) ...}) and in every assertion message ({@code [W2] ucx (in-jvm): ...});
 * {@link ConformanceRules} explains each and what to check when it fails. Rule methods are final.
 * A rule whose capability the backend lacks is skipped with the reason, and the documented refusal
 * is checked by its own rule instead. A backend that is unavailable here is skipped with its
 * cause, unless {@code blockxfer.tck.require} names it; then every rule fails. Settings come from
 * {@link TckEnvironment}. Each rule runs in a thread of its own with a time limit, so a backend
 * that hangs fails the rule instead of stopping the kit.
 *
 * <p><b>Thread safety:</b> JUnit creates one instance per rule; instances are not shared.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
@DisplayNameGeneration(RuleDisplayNames.class)
@ExtendWith(RuleFailures.class)
public abstract class TransportConformanceSuite {

    private final TckEnvironment env = TckEnvironment.fromSystem();
    private volatile @Nullable Fixture fx;

    /** For subclasses. */
    protected TransportConformanceSuite() {
    }

    /** The harness that supplies this backend's transports. */
    protected abstract TckHarness harness();

    /**
     * Rules this backend, in this placement, is known to break, each with the reason (the limitation
     * its documentation states). Such a rule still runs; a failure of it is reported as aborted
     * (skipped) with the reason and the failure, a pass as a pass. A crash or a hang still ends the
     * run. Empty unless a subclass says otherwise; keep it to documented limitations.
     */
    protected Map<ConformanceRules, String> knownViolations() {
        return Map.of();
    }

    /**
     * The rules this suite runs; every rule unless a subclass narrows it, as a suite of a second
     * placement does with {@link ConformanceRules#acrossProcesses()}. A rule left out is skipped
     * with that reason; {@code blockxfer.tck.rules} narrows further.
     */
    protected Set<ConformanceRules> rules() {
        return EnumSet.allOf(ConformanceRules.class);
    }

    @BeforeEach
    final void openFixture(TestInfo info) {
        RuleTest rule = info.getTestMethod().map(m -> m.getAnnotation(RuleTest.class)).orElseThrow(
                () -> new AssertionError("[?] " + info.getDisplayName() + ": every test of the conformance suite"
                        + " must be a rule declared with @RuleTest and an entry of ConformanceRules"));
        String id = rule.value().name();
        Assumptions.assumeTrue(env.selects(id), () -> "[" + id + "] not selected by blockxfer.tck.rules");
        Assumptions.assumeTrue(rules().contains(rule.value()),
                () -> "[" + id + "] not among the rules of " + getClass().getSimpleName() + " (rules())");
        TckHarness harness = harness();
        if (!harness.availability().isAvailable()) {
            String cause = harness.backend() + " is unavailable: " + harness.availability().cause();
            if (env.requires(harness.backend())) {
                fail("[" + id + "] " + cause + " (required by blockxfer.tck.require)",
                        harness.availability().error().orElse(null));
            }
            Assumptions.abort(cause);
        }
        if (harness.memory() == TckHarness.Memory.CALLER) {
            Assumptions.assumeTrue(harness.capabilities().contains(Capability.CALLER_REGION), () -> "[" + id + "] "
                    + harness.backend() + " (" + harness.mode() + "): skipped: the backend does not declare "
                    + Capability.CALLER_REGION);
        }
        fx = new Fixture(harness, env, rule.value());
    }

    @AfterEach
    final void closeFixture() {
        Fixture f = fx;
        fx = null;
        if (f != null) {
            f.close();
        }
    }

    /** The fixture of the running rule. */
    final Fixture fixture() {
        Fixture f = fx;
        if (f == null) {
            throw new IllegalStateException("no rule is running");
        }
        return f;
    }

    /** "backend (mode)" for messages. */
    final String describeHarness() {
        TckHarness h = harness();
        return h.backend() + " (" + h.mode() + ")";
    }

    /** G: what a transport says about itself. <b>Thread safety:</b> one instance per rule, as the suite's. */
    @Nested
    public final class Geometry extends GeometryRules {
        /** For JUnit. */
        public Geometry() {
            super(TransportConformanceSuite.this);
        }
    }

    /** P: registering, replacing and removing peers. <b>Thread safety:</b> one instance per rule, as the suite's. */
    @Nested
    public final class Peers extends PeerRules {
        /** For JUnit. */
        public Peers() {
            super(TransportConformanceSuite.this);
        }
    }

    /** W: writes, byte for byte. <b>Thread safety:</b> one instance per rule, as the suite's. */
    @Nested
    public final class Writes extends WriteRules {
        /** For JUnit. */
        public Writes() {
            super(TransportConformanceSuite.this);
        }
    }

    /** R: reads, byte for byte. <b>Thread safety:</b> one instance per rule, as the suite's. */
    @Nested
    public final class Reads extends ReadRules {
        /** For JUnit. */
        public Reads() {
            super(TransportConformanceSuite.this);
        }
    }

    /** C: ids, completions and the four poll forms. <b>Thread safety:</b> one instance per rule, as the suite's. */
    @Nested
    public final class Completions extends CompletionRules {
        /** For JUnit. */
        public Completions() {
            super(TransportConformanceSuite.this);
        }
    }

    /** X: both cancel modes. <b>Thread safety:</b> one instance per rule, as the suite's. */
    @Nested
    public final class Cancels extends CancelRules {
        /** For JUnit. */
        public Cancels() {
            super(TransportConformanceSuite.this);
        }
    }

    /** F: dead and frozen peers, deadlines, native errors. <b>Thread safety:</b> one instance per rule, as the suite's. */
    @Nested
    public final class Failures extends FailureRules {
        /** For JUnit. */
        public Failures() {
            super(TransportConformanceSuite.this);
        }
    }

    /** M: untrusted descriptors. <b>Thread safety:</b> one instance per rule, as the suite's. */
    @Nested
    public final class Descriptors extends DescriptorRules {
        /** For JUnit. */
        public Descriptors() {
            super(TransportConformanceSuite.this);
        }
    }

    /** K: rotating deployment keys. <b>Thread safety:</b> one instance per rule, as the suite's. */
    @Nested
    public final class Keys extends KeyRotationRules {
        /** For JUnit. */
        public Keys() {
            super(TransportConformanceSuite.this);
        }
    }

    /**
     * T: what the progress modes, queues and deadlines promise about time. <b>Thread safety:</b> one
     * instance per rule, as the suite's.
     */
    @Nested
    public final class Timeliness extends TimelinessRules {
        /** For JUnit. */
        public Timeliness() {
            super(TransportConformanceSuite.this);
        }
    }

    /** L: close and what follows it. <b>Thread safety:</b> one instance per rule, as the suite's. */
    @Nested
    public final class Lifecycle extends LifecycleRules {
        /** For JUnit. */
        public Lifecycle() {
            super(TransportConformanceSuite.this);
        }
    }

    /** S: many threads at once. <b>Thread safety:</b> one instance per rule, as the suite's. */
    @Nested
    public final class Concurrency extends ConcurrencyRules {
        /** For JUnit. */
        public Concurrency() {
            super(TransportConformanceSuite.this);
        }
    }

    /** A: waits and futures. <b>Thread safety:</b> one instance per rule, as the suite's. */
    @Nested
    public final class Awaits extends WaitRules {
        /** For JUnit. */
        public Awaits() {
            super(TransportConformanceSuite.this);
        }
    }

    /**
     * N: notifications, sent and received (N1-N8). <b>Thread safety:</b> one instance per rule, as the
     * suite's.
     */
    @Nested
    public final class Notifications extends NotificationRules {
        /** For JUnit. */
        public Notifications() {
            super(TransportConformanceSuite.this);
        }
    }

    /**
     * N: the receiving side's waits, subscriber and close (N9-N11). <b>Thread safety:</b> one instance
     * per rule, as the suite's.
     */
    @Nested
    public final class NotificationWaits extends NotificationWaitRules {
        /** For JUnit. */
        public NotificationWaits() {
            super(TransportConformanceSuite.this);
        }
    }
}
