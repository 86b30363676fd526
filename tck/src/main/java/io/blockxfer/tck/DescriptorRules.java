package io.blockxfer.tck;

import static io.blockxfer.tck.ConformanceRules.M1;
import static io.blockxfer.tck.ConformanceRules.M2;
import static io.blockxfer.tck.ConformanceRules.M3;
import static io.blockxfer.tck.ConformanceRules.M4;
import static org.junit.jupiter.api.Assertions.fail;

import io.blockxfer.tck.process.ChildJvm;
import io.blockxfer.tck.process.ChildJvmException;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.PeerDescriptor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * M: descriptors come from the network. Decoding rejects every broken blob; a backend rejects
 * garbled metadata and descriptors that lie about the peer's memory, with a typed error and
 * without registering anything. M2, M3 and M4 run in a child JVM where the harness can be
 * recreated there, so a backend that crashes on bad input fails the rule instead of ending the kit.
 *
 * <p>M4 gives every transport a deployment key ring: descriptors must come signed, and unsigned,
 * wrongly signed and tampered ones must be rejected as unauthenticated before the backend sees
 * them (their metadata is garbled too, so a backend that parsed it first would say "malformed").
 *
 * <p><b>Thread safety:</b> JUnit makes one instance per rule; not shared.
 */
abstract class DescriptorRules extends RuleGroup {

    DescriptorRules(TransportConformanceSuite suite) {
        super(suite);
    }

    @RuleTest(M1)
    public final void m1_decodeRejectsBrokenBlobs() {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer a = fx.target();
        PeerDescriptor genuine = a.descriptor();
        List<String> problems = DescriptorAttacks.decoderProblems(PeerDescriptor::decode, genuine.encode(), genuine,
                fx.env.fuzzIterations());
        if (!problems.isEmpty()) {
            fail(fx.msg("PeerDescriptor.decode: " + String.join("; ", problems)));
        }
        t.addPeer("a", PeerDescriptor.decode(genuine.encode()));
        long id = fx.write(t, "a", 0, 1);
        fx.assertAllDone(fx.await(t, "a", List.of(id)));
        fx.assertTargetBlock(a, 1, BlockPattern.seed(Fixture.LOCAL, 0), "transfer " + id);
    }

    @RuleTest(M2)
    public final void m2_garbledMetadata() {
        check(fx(), attack(fx()));
    }

    @RuleTest(M3)
    public final void m3_lyingGeometry() {
        check(fx(), attack(fx()));
    }

    @RuleTest(M4)
    public final void m4_authentication() {
        check(fx(), attack(fx()));
    }

    private static final String KEY_ID = "tck-key";

    /** A fresh key ring of 32 random bytes under {@code id}. */
    static DeploymentKeyRing randomRing(String id) {
        return TckKeys.ring(id);
    }

    /** Prepares {@code fx} for {@code rule}'s attack before anything is opened: M4 needs a key ring. */
    static void prepare(Fixture fx) {
        if (fx.rule == M4) {
            fx.keyRing = randomRing(KEY_ID);
        }
    }

    /** Why {@code genuine} cannot be attacked under {@code rule}, or null. */
    static @Nullable String unfit(ConformanceRules rule, PeerDescriptor genuine) {
        return rule == M4 && !genuine.isSigned() ? "a transport with a deployment key ring handed out an unsigned"
                + " descriptor (it must sign its localDescriptor)" : null;
    }

    /** The cases of {@code rule} against the peer of {@code genuine} ({@code other}: another peer). */
    static List<DescriptorAttacks.Case> cases(ConformanceRules rule, PeerDescriptor genuine, PeerDescriptor other) {
        return switch (rule) {
            case M2 -> DescriptorAttacks.garbledMetadata(genuine);
            case M3 -> DescriptorAttacks.lies(genuine, other);
            case M4 -> DescriptorAttacks.tampered(genuine, randomRing(KEY_ID), randomRing("tck-rogue"));
            default -> throw new IllegalArgumentException("no descriptor attack for " + rule);
        };
    }

    /** Runs the rule's attack in a child JVM where possible, else here; returns the cases and outcomes. */
    private static Attack attack(Fixture fx) {
        Optional<List<String>> recipe = recipe(fx.harness);
        String why = recipe.isEmpty() ? " (the harness cannot be recreated in a child JVM)" : " (isolation is off)";
        if (recipe.isPresent() && fx.env.isolate()) {
            Attack inChild = inChild(fx, recipe.get());
            if (inChild.cases() >= 0) {
                return inChild;
            }
            why = " (" + inChild.where() + ")";
        }
        prepare(fx);
        DataTransport t = fx.initiator();
        TargetPeer target = fx.target();
        TargetPeer other = fx.target();
        String unfit = unfit(fx.rule, target.descriptor());
        if (unfit != null) {
            fail(fx.msg(unfit + ", attacked in this JVM" + why));
        }
        List<DescriptorAttacks.Case> cases = cases(fx.rule, target.descriptor(), other.descriptor());
        List<DescriptorAttacks.Outcome> outcomes = new ArrayList<>();
        DescriptorAttacks.run(t, cases, target.descriptor(), line -> { }, outcomes::add);
        return new Attack(cases.size(), outcomes, "in this JVM" + why);
    }

    private record Attack(int cases, List<DescriptorAttacks.Outcome> outcomes, String where) {
    }

    private static Optional<List<String>> recipe(TckHarness harness) {
        if (harness instanceof InJvmHarness h) {
            return h.recipe();
        }
        if (harness instanceof TwoProcessHarness h) {
            return h.local().recipe();
        }
        return Optional.empty();
    }

    /**
     * The attack in a child JVM; an attack with -1 cases when the child could not recreate the
     * harness (a provider from a class loader of its own, for instance), whose {@code where} says why.
     */
    private static Attack inChild(Fixture fx, List<String> recipe) {
        List<String> args = new ArrayList<>();
        args.add(fx.rule.name());
        args.addAll(recipe);
        List<String> jvmArgs = new ArrayList<>(List.of("-Xmx512m"));
        if (fx.harness instanceof TwoProcessHarness h) {
            jvmArgs.addAll(h.jvmArgs());
        }
        List<DescriptorAttacks.Outcome> outcomes = new ArrayList<>();
        String trying = "starting";
        int cases = -1;
        Duration step = fx.env.timeout().plusSeconds(15);
        try (ChildJvm child = ChildJvm.builder(AttackProcess.class).name("tck-" + fx.rule.name() + "-attack")
                .args(args).jvmArgs(jvmArgs).forwardSystemProperties(key -> key.startsWith("blockxfer."))
                .stderrTo(line -> { }).start()) {
            while (true) {
                String line;
                try {
                    line = child.nextLine(step);
                } catch (ChildJvmException e) {
                    fail(fx.msg("the backend ended the child JVM running the attack while " + trying + ": "
                            + e.getMessage()));
                    throw e;
                }
                if (line.startsWith("CASES ")) {
                    cases = Integer.parseInt(line.substring(6).trim());
                } else if (line.startsWith("TRY ")) {
                    trying = "trying case " + line.substring(4);
                } else if (line.startsWith("OUT ")) {
                    outcomes.add(DescriptorAttacks.Outcome.parse(line));
                    trying = "after case " + outcomes.getLast().label();
                } else if (line.equals("END")) {
                    break;
                } else if (line.startsWith("FAIL ")) {
                    fail(fx.msg(line.substring(5) + " (in a child JVM)"));
                } else if (line.startsWith("ERR ") && cases < 0) {
                    return new Attack(-1, List.of(), "a child JVM could not open the harness: " + line.substring(4));
                } else if (line.startsWith("ERR ")) {
                    fail(fx.msg("the attack's child JVM failed " + trying + ": " + line.substring(4) + " ("
                            + child.describe() + ")"));
                }
            }
        }
        return new Attack(cases, outcomes, "in a child JVM");
    }

    private static void check(Fixture fx, Attack attack) {
        List<String> problems = new ArrayList<>();
        boolean control = false;
        int seen = 0;
        for (DescriptorAttacks.Outcome o : attack.outcomes()) {
            switch (o.result()) {
                case REJECTED, LIMITED -> seen += o.result() == DescriptorAttacks.Result.REJECTED ? 1 : 0;
                case ACCEPTED -> {
                    seen++;
                    if (!o.label().equals("eight blocks fewer")) {
                        problems.add("accepted " + o.label());
                    }
                }
                case LEFT_REGISTERED -> {
                    seen++;
                    problems.add(o.label() + ": rejected (" + o.detail() + ") but the peer took transfers afterwards");
                }
                case NOT_AUTHENTICATED -> {
                    seen++;
                    problems.add(o.label() + ": rejected with " + o.detail() + ", not as unauthenticated: the backend"
                            + " looked at it before its signature was checked");
                }
                case UNTYPED -> {
                    seen++;
                    problems.add(o.label() + ": raised " + o.detail() + " instead of a TransportException");
                }
                case NOT_LIMITED -> problems.add(o.label() + ": " + o.detail());
                case CONTROL_OK -> control = true;
                case CONTROL_FAILED -> problems.add("afterwards the genuine descriptor failed: " + o.detail());
            }
        }
        if (seen != attack.cases()) {
            problems.add("only " + seen + " of " + attack.cases() + " cases reported an outcome");
        }
        if (!control && problems.isEmpty()) {
            problems.add("no control transfer was reported");
        }
        if (!problems.isEmpty()) {
            fail(fx.msg(problems.size() + " of " + attack.cases() + " bad descriptors were mishandled ("
                    + attack.where() + "): " + String.join("; ", problems.subList(0, Math.min(8, problems.size())))
                    + (problems.size() > 8 ? "; ..." : "")));
        }
    }
}
