package io.blockxfer.tck.directory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import io.blockxfer.directory.Membership;
import io.blockxfer.directory.MembershipListener;
import io.blockxfer.tck.RuleRuns;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.DeploymentKeyRing;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.platform.testkit.engine.Events;

/**
 * The directory kit tests itself: each deliberately broken directory or membership of
 * {@link BrokenDirectories} must fail the rule that names its defect, every run (the working
 * in-memory directory passes every rule: {@link InMemoryDirectoryConformanceTest}); every rule has
 * at least one such variant, as its catalogue entry says; and the rules and their catalogue are in
 * step.
 */
class BrokenDirectoriesAreCaughtTest {

    private static final Map<String, String> SETTINGS = Map.of(
            "blockxfer.tck.timeoutMillis", "1000",
            "blockxfer.tck.quietMillis", "150");

    @BeforeAll
    static void shortTimeouts() {
        SETTINGS.forEach(System::setProperty);
    }

    @AfterAll
    static void restoreTimeouts() {
        SETTINGS.keySet().forEach(System::clearProperty);
    }

    /** The suite over the broken variant a run installs. */
    static class InstalledSuite extends DirectoryConformanceSuite {
        static volatile Breakages.Breakage installed;

        @Override
        protected DirectoryDeployment deployment() {
            return new Breakages.BrokenDeployment(installed);
        }

        @Override
        DeploymentKeyRing keyRing() {
            return Breakages.RING;
        }

        @Override
        MembershipListener decorate(MembershipListener listener) {
            return installed.decorate(listener);
        }

        @Override
        Membership.Builder configure(Membership.Builder builder) {
            return installed.configure(builder);
        }

        @Override
        DataTransport membershipTransport(DataTransport transport) {
            return installed.membershipTransport(transport);
        }
    }

    static Events run(Breakages.Breakage breakage, DirectoryRules rule) {
        InstalledSuite.installed = breakage;
        try {
            return RuleRuns.run(InstalledSuite.class, rule);
        } finally {
            InstalledSuite.installed = null;
        }
    }

    @TestFactory
    @DisplayName("every broken directory or membership fails the rule that names its defect")
    Stream<DynamicTest> brokenVariantsAreCaught() {
        return BrokenDirectories.all().stream().map(v -> dynamicTest(v.toString(),
                () -> RuleRuns.assertFailedItsRule(run(v.breakage(), v.rule()), v, v.rule())));
    }

    @Test
    @DisplayName("the working in-memory directory passes every rule with the broken runs' key ring and settings")
    void theUnbrokenDecoratorPassesEveryRule() {
        for (DirectoryRules rule : List.of(DirectoryRules.D5, DirectoryRules.D18, DirectoryRules.D19,
                DirectoryRules.D20, DirectoryRules.B6, DirectoryRules.B13, DirectoryRules.B17)) {
            Events events = run(new Breakages.Breakage() { }, rule);
            assertEquals(1, events.succeeded().count(), rule + " failed undecorated: " + RuleRuns.failures(events));
        }
    }

    @Test
    @DisplayName("every rule has a broken variant that proves it can fail, as its catalogue entry says")
    void everyRuleIsProvenByABrokenVariant() {
        Map<DirectoryRules, Set<String>> proven = new EnumMap<>(DirectoryRules.class);
        for (Breakages.Variant v : BrokenDirectories.all()) {
            proven.computeIfAbsent(v.rule(), r -> new LinkedHashSet<>()).add(v.name());
        }
        for (DirectoryRules rule : DirectoryRules.values()) {
            Set<String> names = proven.getOrDefault(rule, Set.of());
            assertFalse(names.isEmpty(), "no broken variant proves that rule " + rule + " can fail");
            Set<String> documented = Arrays.stream(rule.provenBy().split(",")).map(String::trim)
                    .collect(Collectors.toCollection(LinkedHashSet::new));
            assertEquals(documented, names, "DirectoryRules." + rule + " names " + documented
                    + ", but its broken variants are " + names);
        }
    }

    @Test
    @DisplayName("every catalogue entry has exactly one final rule method, and every rule method an entry")
    void rulesAndCatalogueAreInStep() {
        Map<DirectoryRules, Integer> methods = new EnumMap<>(DirectoryRules.class);
        Map<DirectoryRules.Area, Class<?>> groups = Map.of(DirectoryRules.Area.DIRECTORY, DirectoryContractRules.class,
                DirectoryRules.Area.SCOPES, DirectoryScopeRules.class, DirectoryRules.Area.MEMBERSHIP,
                MembershipRules.class, DirectoryRules.Area.OWN_ENTRY, OwnEntryRules.class, DirectoryRules.Area.ON_DEMAND,
                OnDemandRules.class, DirectoryRules.Area.HELD_SET, HeldSetRules.class);
        assertEquals(DirectoryRules.Area.values().length, groups.size(), "every area has its class");
        for (Map.Entry<DirectoryRules.Area, Class<?>> group : groups.entrySet()) {
            for (Method m : group.getValue().getDeclaredMethods()) {
                DirectoryRuleTest rule = m.getAnnotation(DirectoryRuleTest.class);
                if (rule == null) {
                    continue;
                }
                assertTrue(Modifier.isFinal(m.getModifiers()), m + " must be final");
                assertEquals(group.getKey(), rule.value().area(), m + " is in the class of another area than "
                        + rule.value() + "'s");
                methods.merge(rule.value(), 1, Integer::sum);
            }
        }
        for (Method m : MembershipRuleGroup.class.getDeclaredMethods()) {
            assertEquals(null, m.getAnnotation(DirectoryRuleTest.class), m + ": rules live in their area's class");
        }
        for (DirectoryRules rule : DirectoryRules.values()) {
            assertEquals(1, methods.getOrDefault(rule, 0), "rule " + rule + " must have exactly one method");
        }
    }
}
