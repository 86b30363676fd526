package io.blockxfer.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import io.blockxfer.transport.MalformedPeerDescriptorException;
import io.blockxfer.transport.PeerDescriptor;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.platform.engine.TestDescriptor;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

/**
 * The kit tests itself: each deliberately broken backend of {@link BrokenBackends} must fail the
 * rule that names its defect, every run, and the working backend it was made from must pass that
 * same rule. Every rule has at least one such backend, and the rules and their catalogue
 * ({@link ConformanceRules}) are in step.
 */
class BrokenBackendsAreCaughtTest {

    static final Map<String, String> SETTINGS = Map.of(
            "blockxfer.tck.timeoutMillis", "1000",
            "blockxfer.tck.stressMillis", "1000",
            "blockxfer.tck.deadlineMillis", "600",
            "blockxfer.tck.holdMillis", "800",
            "blockxfer.tck.quietMillis", "150",
            "blockxfer.tck.settleMillis", "300",
            "blockxfer.tck.fuzzIterations", "200",
            "blockxfer.tck.closeTimeoutMillis", "1000");

    @BeforeAll
    static void shortTimeouts() {
        SETTINGS.forEach(System::setProperty);
    }

    @AfterAll
    static void restoreTimeouts() {
        SETTINGS.keySet().forEach(System::clearProperty);
    }

    /** The suite over the harness a run installs. */
    static class InstalledSuite extends TransportConformanceSuite {
        static volatile TckHarness installed;

        @Override
        protected TckHarness harness() {
            return installed;
        }
    }

    /** The installed suite, with the installed rule listed as a known violation. */
    static class KnownViolationSuite extends InstalledSuite {
        static volatile ConformanceRules known;

        @Override
        protected Map<ConformanceRules, String> knownViolations() {
            ConformanceRules rule = known;
            return rule == null ? Map.of() : Map.of(rule, "a limitation its documentation states");
        }
    }

    static Events run(TckHarness harness, ConformanceRules rule) {
        InstalledSuite.installed = harness;
        try {
            return RuleRuns.run(InstalledSuite.class, rule);
        } finally {
            InstalledSuite.installed = null;
        }
    }

    @TestFactory
    @DisplayName("every broken backend fails the rule that names its defect")
    Stream<DynamicTest> brokenBackendsAreCaught() {
        return BrokenBackends.all().stream().map(v -> dynamicTest(v.toString(), () -> {
            String why = RuleRuns.assertFailedItsRule(run(v.harness().get(), v.rule()), v, v.rule());
            if (v.name().startsWith("crashes-")) {
                assertTrue(why.contains("child JVM"), v + ": the crash must be met in a child JVM: " + why);
            }
        }));
    }

    @Test
    @DisplayName("a rule a suite lists as a known violation still runs; its failure is reported aborted, with the"
            + " reason and the failure")
    void knownViolationsRunAndAreReportedAborted() {
        BrokenBackends.Variant v = BrokenBackends.all().stream()
                .filter(b -> b.rule() == ConformanceRules.F1).findFirst().orElseThrow();
        InstalledSuite.installed = v.harness().get();
        KnownViolationSuite.known = v.rule();
        Events events;
        try {
            events = RuleRuns.run(KnownViolationSuite.class, v.rule());
        } finally {
            InstalledSuite.installed = null;
            KnownViolationSuite.known = null;
        }
        assertEquals(1, events.started().count(), v + ": the rule must still run");
        assertEquals(0, events.failed().count(), v + ": a known violation must not fail the suite");
        assertEquals(1, events.aborted().count(), v + ": the known violation must be reported aborted");
        String why = RuleRuns.why(events.aborted().list().get(0));
        assertTrue(why.contains("[F1] known violation of this backend (a limitation its documentation states)")
                && why.contains("it failed with:"), why);
    }

    @TestFactory
    @DisplayName("the working backends the broken ones are made from pass the same rules")
    Stream<DynamicTest> workingBasesPass() {
        Set<String> seen = new LinkedHashSet<>();
        List<DynamicTest> tests = new ArrayList<>();
        for (BrokenBackends.Variant v : BrokenBackends.all()) {
            if (v.base() == BrokenBackends.Base.LOOPBACK || !seen.add(v.base() + "/" + v.rule())) {
                continue; // LoopbackConformanceTest certifies the plain loopback backend with every rule
            }
            tests.add(dynamicTest(v.base() + " passes [" + v.rule() + "]", () -> {
                Events events = run(v.base().harness(), v.rule());
                assertEquals(1, events.succeeded().count(), v.base() + " must pass " + v.rule() + ": "
                        + RuleRuns.failures(events));
            }));
        }
        return tests.stream();
    }

    @Test
    @DisplayName("every rule has a broken backend that proves it can fail, as its catalogue entry says")
    void everyRuleIsProvenByABrokenBackend() {
        Map<ConformanceRules, Set<String>> proven = new EnumMap<>(ConformanceRules.class);
        for (BrokenBackends.Variant v : BrokenBackends.all()) {
            proven.computeIfAbsent(v.rule(), r -> new LinkedHashSet<>()).add(v.name());
        }
        proven.put(ConformanceRules.M1, Set.copyOf(BROKEN_DECODERS.keySet()));
        for (ConformanceRules rule : ConformanceRules.values()) {
            Set<String> names = proven.getOrDefault(rule, Set.of());
            assertFalse(names.isEmpty(), "no broken backend proves that rule " + rule + " can fail");
            Set<String> documented = Arrays.stream(rule.provenBy().split(",")).map(s -> s.replaceAll("\\(.*\\)", "")
                    .trim()).collect(Collectors.toCollection(LinkedHashSet::new));
            assertTrue(names.containsAll(documented), "ConformanceRules." + rule + " names " + documented
                    + ", but the broken backends of that rule are " + names);
        }
    }

    /** Decoders with the defects M1 exists for, keyed by name; run on the decoder alone (decode is the API's). */
    static final Map<String, Function<byte[], PeerDescriptor>> BROKEN_DECODERS = Map.of(
            "decoder-accepts-a-blob-cut-inside-the-metadata", BrokenBackendsAreCaughtTest::acceptsTruncated,
            "decoder-ignores-the-checksum", BrokenBackendsAreCaughtTest::ignoresChecksum,
            "decoder-throws-other-exceptions", blob -> {
                try {
                    return PeerDescriptor.decode(blob);
                } catch (MalformedPeerDescriptorException e) {
                    throw new IllegalArgumentException(e.getMessage(), e);
                }
            });

    private static PeerDescriptor genuine() {
        return new PeerDescriptor("loopback", "e66978b6d0f4f4e6", 4096 * 16, 64, 4096, new byte[24]);
    }

    private static PeerDescriptor acceptsTruncated(byte[] blob) {
        byte[] good = genuine().encode();
        if (blob != null && blob.length > 40 && blob.length < good.length
                && Arrays.equals(blob, 0, blob.length, good, 0, blob.length)) {
            return genuine(); // "the rest of the metadata is optional"
        }
        return PeerDescriptor.decode(blob);
    }

    private static PeerDescriptor ignoresChecksum(byte[] blob) {
        if (blob != null && blob.length >= 4) {
            byte[] fixed = blob.clone();
            java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
            crc.update(fixed, 0, fixed.length - 4);
            java.nio.ByteBuffer.wrap(fixed).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(fixed.length - 4,
                    (int) crc.getValue());
            return PeerDescriptor.decode(fixed);
        }
        return PeerDescriptor.decode(blob);
    }

    @TestFactory
    @DisplayName("[M1]'s checks catch broken decoders and pass the real one")
    Stream<DynamicTest> decoderRuleCatchesBrokenDecoders() {
        byte[] good = genuine().encode();
        List<DynamicTest> tests = new ArrayList<>();
        tests.add(dynamicTest("PeerDescriptor.decode passes", () -> assertEquals(List.of(),
                DescriptorAttacks.decoderProblems(PeerDescriptor::decode, good, genuine(), 2_000))));
        BROKEN_DECODERS.forEach((name, decoder) -> tests.add(dynamicTest(name + " -> [M1]", () -> assertFalse(
                DescriptorAttacks.decoderProblems(decoder, good, genuine(), 200).isEmpty(), name + " passed M1"))));
        return tests.stream();
    }

    @Test
    @DisplayName("every catalogue entry has exactly one rule, every rule an entry, and rules are final")
    void rulesAndCatalogueAreInStep() {
        InstalledSuite.installed = BrokenBackends.Base.LOOPBACK.harness();
        try {
            TestDescriptor root = EngineTestKit.engine("junit-jupiter").selectors(selectClass(InstalledSuite.class))
                    .discover().getEngineDescriptor();
            Map<String, Integer> count = new java.util.TreeMap<>();
            for (TestDescriptor d : root.getDescendants()) {
                if (!d.isTest()) {
                    continue;
                }
                String name = d.getDisplayName();
                assertTrue(name.startsWith("[") && !name.startsWith("[?]"), "a test that is not a rule: " + name);
                count.merge(name.substring(1, name.indexOf(']')), 1, Integer::sum);
                MethodSource source = (MethodSource) d.getSource().orElseThrow();
                assertTrue(Modifier.isFinal(source.getJavaMethod().getModifiers()), "rule methods must be final: "
                        + name);
            }
            for (ConformanceRules rule : ConformanceRules.values()) {
                assertEquals(1, count.getOrDefault(rule.name(), 0), "rule " + rule + " must have exactly one test");
                assertTrue(rule.displayName().startsWith("[" + rule.name() + "] (" + rule.kind().name()
                        .toLowerCase(java.util.Locale.ROOT) + ") "), rule.displayName());
            }
            assertEquals(ConformanceRules.values().length, count.size(), "tests of unknown rules: " + count.keySet());
        } finally {
            InstalledSuite.installed = null;
        }
    }
}
