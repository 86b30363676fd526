package io.blockxfer.tck.holds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import io.blockxfer.tck.InJvmHarness;
import io.blockxfer.tck.RuleRuns;
import io.blockxfer.tck.TckHarness;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.platform.testkit.engine.Events;

/**
 * The holds kit tests itself: each deliberately broken variant of {@link BrokenHolds} must fail the
 * rule that names its defect, every run (the unbroken holds pass every rule:
 * {@link LoopbackHoldConformanceTest}); every rule has at least one such variant, as its catalogue
 * entry says; and the rules and their catalogue are in step.
 */
class BrokenHoldsAreCaughtTest {

    private static final Map<String, String> SETTINGS = Map.of(
            "blockxfer.tck.timeoutMillis", "5000",
            "blockxfer.tck.quietMillis", "100");

    @BeforeAll
    static void shortTimeouts() {
        SETTINGS.forEach(System::setProperty);
    }

    @AfterAll
    static void restoreTimeouts() {
        SETTINGS.keySet().forEach(System::clearProperty);
    }

    /** The suite over the loopback backend with the breakage a run installs. */
    static class InstalledSuite extends HoldConformanceSuite {
        static volatile @Nullable HoldBreakage installed;

        @Override
        protected TckHarness harness() {
            return InJvmHarness.of("loopback");
        }

        @Override
        HoldBreakage breakage() {
            HoldBreakage b = installed;
            return b == null ? HoldBreakage.NONE : b;
        }
    }

    static Events run(HoldBreakage breakage, HoldRules rule) {
        InstalledSuite.installed = breakage;
        try {
            return RuleRuns.run(InstalledSuite.class, rule);
        } finally {
            InstalledSuite.installed = null;
        }
    }

    @TestFactory
    @DisplayName("every broken variant fails the rule that names its defect")
    Stream<DynamicTest> brokenVariantsAreCaught() {
        return BrokenHolds.all().stream().map(v -> dynamicTest(v.toString(),
                () -> RuleRuns.assertFailedItsRule(run(v.breakage(), v.rule()), v, v.rule())));
    }

    @Test
    @DisplayName("the unbroken holds pass the rules the variants break, with the broken runs' settings")
    void theUnbrokenHoldsPassTheseRules() {
        for (HoldRules rule : List.of(HoldRules.H1, HoldRules.H5, HoldRules.H7, HoldRules.H10)) {
            Events events = run(HoldBreakage.NONE, rule);
            assertEquals(1, events.succeeded().count(), rule + " failed unbroken: " + RuleRuns.failures(events));
        }
    }

    @Test
    @DisplayName("every rule has a broken variant that proves it can fail, as its catalogue entry says")
    void everyRuleIsProvenByABrokenVariant() {
        Map<HoldRules, Set<String>> proven = new EnumMap<>(HoldRules.class);
        for (BrokenHolds.Variant v : BrokenHolds.all()) {
            proven.computeIfAbsent(v.rule(), r -> new LinkedHashSet<>()).add(v.name());
        }
        for (HoldRules rule : HoldRules.values()) {
            Set<String> names = proven.getOrDefault(rule, Set.of());
            assertFalse(names.isEmpty(), "no broken variant proves that rule " + rule + " can fail");
            Set<String> documented = Arrays.stream(rule.provenBy().split(",")).map(String::trim)
                    .collect(Collectors.toCollection(LinkedHashSet::new));
            assertEquals(documented, names, "HoldRules." + rule + " names " + documented + ", but its broken variants"
                    + " are " + names);
        }
    }

    @Test
    @DisplayName("every catalogue entry has exactly one final rule method, in its area's group, and every rule method an entry")
    void rulesAndCatalogueAreInStep() {
        Map<HoldRules, Integer> methods = new EnumMap<>(HoldRules.class);
        Map<Class<?>, HoldRules.Area> groups = Map.of(HandOffRules.class, HoldRules.Area.HAND_OFF, TimeRules.class,
                HoldRules.Area.TIME, EndRules.class, HoldRules.Area.ENDS);
        groups.forEach((group, area) -> {
            for (Method m : group.getDeclaredMethods()) {
                HoldRuleTest rule = m.getAnnotation(HoldRuleTest.class);
                if (rule == null) {
                    continue;
                }
                assertTrue(Modifier.isFinal(m.getModifiers()), m + " must be final");
                assertEquals(area, rule.value().area(), m + " is in the wrong group for " + rule.value());
                methods.merge(rule.value(), 1, Integer::sum);
            }
        });
        for (HoldRules rule : HoldRules.values()) {
            assertEquals(1, methods.getOrDefault(rule, 0), "rule " + rule + " must have exactly one method");
        }
    }
}
