package io.blockxfer.tck.directory;

import io.blockxfer.directory.MembershipListener;
import io.blockxfer.tck.TckEnvironment;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.Transports;
import java.security.SecureRandom;
import java.util.EnumSet;
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
 * The directory conformance kit. A {@link io.blockxfer.directory.Directory} implementation
 * certifies itself with a one-method subclass that makes a fresh deployment for each rule:
 *
 * <pre>{@code
 * class EtcdDirectoryConformanceTest extends DirectoryConformanceSuite {
 *     protected DirectoryDeployment deployment() {
 *         return new EtcdDeployment(endpoints, "/tck/" + UUID.randomUUID() + "/");
 *     }
 * }
 * }</pre>
 *
 * <p>The rules come in four {@link Nested} groups, each rule in the one class of its
 * {@link DirectoryRules.Area}: D1-D13, the directory contract ({@code DirectoryContractRules}:
 * publish, snapshot and ordered events, goodbye, lease expiry and keep-alive, reconnects and
 * resyncs, lease loss, bad arguments, close, listener threads, unreachable directories); D14 on,
 * scopes ({@code DirectoryScopeRules}: scoped watches, publications with a group); B1-B15 and B27, a
 * {@link io.blockxfer.directory.Membership} binding loopback transports to the directory
 * ({@code MembershipRules}: joins, restarts, leaves, expiries, refusals of bad entries, lease loss,
 * outages, listeners, close, flapping, unreachable at build, registrations replaced); B16, B29, B31,
 * B33 and B34, a member's own entry ({@code OwnEntryRules}: restored under its lease, at a bounded
 * rate, deleted at its goodbye despite a stranger's writes, published again after a lease that ran
 * out in an outage or was lost while changes were held back); B17 to B26 and B28, members
 * on demand ({@code OnDemandRules}: resolved, followed until they leave, groups, deletes of other
 * keys, twins, an unreachable directory), and B20 and B32 of them, the limit on members held
 * ({@code HeldSetRules}: released when idle, kept while all are busy). Every rule has an id shown in its display name with its class ({@code [D7]
 * (capability) ...}) and in every assertion message ({@code [D7] etcd 3.4.23: ...});
 * {@link DirectoryRules} explains each. Rule methods are final. A rule needing a fault the
 * deployment cannot cause ({@link DirectoryDeployment#faults()}) is skipped with the reason; the B
 * rules are skipped when the loopback backend ({@code transport-loopback}) is not on the class
 * path. Settings (time limits, rule selection with {@code blockxfer.tck.rules}) come from
 * {@link TckEnvironment}. Each rule runs in a thread of its own with a time limit.
 *
 * <p><b>Thread safety:</b> JUnit creates one instance per rule; instances are not shared.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
@DisplayNameGeneration(DirectoryRuleNames.class)
@ExtendWith(DirectoryRuleFailures.class)
public abstract class DirectoryConformanceSuite {

    private final TckEnvironment env = TckEnvironment.fromSystem();
    private volatile @Nullable DirectoryFixture fx;
    private volatile String deploymentName = "?";

    /** For subclasses. */
    protected DirectoryConformanceSuite() {
    }

    /**
     * A fresh deployment for one rule: its clients connect to a prefix no other rule uses (or that
     * starts empty). The suite closes it after the rule.
     */
    protected abstract DirectoryDeployment deployment();

    /**
     * The rules this suite runs; every rule unless overridden. A suite that runs the kit a second
     * time on a deployment that changes only some of what the rules check (the same directory
     * through a proxy, say) narrows it to those; the others are skipped, saying so.
     */
    protected Set<DirectoryRules> rules() {
        return EnumSet.allOf(DirectoryRules.class);
    }

    /** The key ring of a rule's memberships and transports: a new random one. For the kit's own tests to fix. */
    DeploymentKeyRing keyRing() {
        byte[] key = new byte[DeploymentKeyRing.MIN_KEY_BYTES];
        new SecureRandom().nextBytes(key);
        return DeploymentKeyRing.of("tck", key);
    }

    /** The listener a rule's membership is given. For the kit's own tests to break. */
    MembershipListener decorate(MembershipListener listener) {
        return listener;
    }

    /** The builder of a rule's membership, just before it is built. For the kit's own tests to break. */
    io.blockxfer.directory.Membership.Builder configure(io.blockxfer.directory.Membership.Builder builder) {
        return builder;
    }

    /** The transport a rule's membership is given (not the rule's own handle). For the kit's own tests to break. */
    io.blockxfer.transport.DataTransport membershipTransport(io.blockxfer.transport.DataTransport transport) {
        return transport;
    }

    @BeforeEach
    final void openFixture(TestInfo info) {
        DirectoryRuleTest annotation = info.getTestMethod().map(m -> m.getAnnotation(DirectoryRuleTest.class))
                .orElseThrow(() -> new AssertionError("[?] " + info.getDisplayName() + ": every test of the directory"
                        + " suite must be a rule declared with @DirectoryRuleTest and an entry of DirectoryRules"));
        DirectoryRules rule = annotation.value();
        String id = rule.name();
        Assumptions.assumeTrue(env.selects(id), () -> "[" + id + "] not selected by blockxfer.tck.rules");
        Assumptions.assumeTrue(rules().contains(rule), () -> "[" + id + "] not among the rules of "
                + getClass().getSimpleName() + " (rules())");
        if (rule.area().needsTransports()) {
            Assumptions.assumeTrue(loopbackAvailable(), () -> "[" + id + "] skipped: the membership rules bind"
                    + " loopback transports; put transport-loopback on the test class path");
        }
        DirectoryDeployment d = deployment();
        deploymentName = d.name();
        DirectoryFault fault = rule.fault();
        if (fault != null && !d.faults().contains(fault)) {
            d.close();
            Assumptions.abort("[" + id + "] " + d.name() + ": skipped: the deployment cannot cause " + fault);
        }
        fx = new DirectoryFixture(this, d, env, rule);
    }

    private static boolean loopbackAvailable() {
        try {
            Class.forName("io.blockxfer.loopback.LoopbackFaults", false, DirectoryConformanceSuite.class
                    .getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
        return Transports.providers().stream().anyMatch(p -> p.name().equals("loopback") && p.isAvailable());
    }

    @AfterEach
    final void closeFixture() {
        DirectoryFixture f = fx;
        fx = null;
        if (f != null) {
            f.close();
        }
    }

    /** The fixture of the running rule. */
    final DirectoryFixture fixture() {
        DirectoryFixture f = fx;
        if (f == null) {
            throw new IllegalStateException("no rule is running");
        }
        return f;
    }

    /** The deployment's name, for messages. */
    final String describeDeployment() {
        return deploymentName;
    }

    /** D1-D13: the directory contract. <b>Thread safety:</b> one instance per rule, as the suite's. */
    @Nested
    public final class Directories extends DirectoryContractRules {
        /** For JUnit. */
        public Directories() {
            super(DirectoryConformanceSuite.this);
        }
    }

    /** D14 on: scoped watches and grouped publications. <b>Thread safety:</b> one instance per rule. */
    @Nested
    public final class Scopes extends DirectoryScopeRules {
        /** For JUnit. */
        public Scopes() {
            super(DirectoryConformanceSuite.this);
        }
    }

    /** B1-B15 and B27: a membership binding loopback transports to the directory. <b>Thread safety:</b> one instance per rule. */
    @Nested
    public final class Memberships extends MembershipRules {
        /** For JUnit. */
        public Memberships() {
            super(DirectoryConformanceSuite.this);
        }
    }

    /** B16, B29, B31, B33 and B34: a member's care of its own entry. <b>Thread safety:</b> one instance per rule. */
    @Nested
    public final class OwnEntries extends OwnEntryRules {
        /** For JUnit. */
        public OwnEntries() {
            super(DirectoryConformanceSuite.this);
        }
    }

    /** B20 and B32: the limit on members held. <b>Thread safety:</b> one instance per rule. */
    @Nested
    public final class HeldSets extends HeldSetRules {
        /** For JUnit. */
        public HeldSets() {
            super(DirectoryConformanceSuite.this);
        }
    }

    /** B17 on (but B20 and B32): members on demand and groups. <b>Thread safety:</b> one instance per rule. */
    @Nested
    public final class OnDemand extends OnDemandRules {
        /** For JUnit. */
        public OnDemand() {
            super(DirectoryConformanceSuite.this);
        }
    }
}
