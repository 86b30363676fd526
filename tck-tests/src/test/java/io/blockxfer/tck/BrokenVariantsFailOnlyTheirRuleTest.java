package io.blockxfer.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestFactory;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

/**
 * Each broken variant of the rule groups about promises (K: key rotation, T: timeliness) runs
 * against the whole suite and must fail its own rule and no other, so each of those rules is the
 * only one that catches its defect.
 */
// full tier: the whole suite once per variant (about a minute each); the fast tier proves each
// variant against its own rule in BrokenBackendsAreCaughtTest
@Tag("full")
class BrokenVariantsFailOnlyTheirRuleTest {

    /** The rule groups whose variants are checked here. */
    private static final Set<ConformanceRules.Area> AREAS = Set.of(ConformanceRules.Area.KEYS,
            ConformanceRules.Area.TIMELINESS);

    @BeforeAll
    static void shortTimeouts() {
        BrokenBackendsAreCaughtTest.SETTINGS.forEach(System::setProperty);
    }

    @AfterAll
    static void restoreTimeouts() {
        BrokenBackendsAreCaughtTest.SETTINGS.keySet().forEach(System::clearProperty);
    }

    @TestFactory
    @DisplayName("each broken variant of the K and T rules fails its own rule and no other")
    Stream<DynamicTest> onlyTheirRule() {
        return BrokenBackends.all().stream().filter(v -> AREAS.contains(v.rule().area())).map(v -> dynamicTest(
                v.toString(), () -> {
                    BrokenBackendsAreCaughtTest.InstalledSuite.installed = v.harness().get();
                    Events events;
                    try {
                        events = EngineTestKit.engine("junit-jupiter")
                                .selectors(selectClass(BrokenBackendsAreCaughtTest.InstalledSuite.class)).execute()
                                .testEvents();
                    } finally {
                        BrokenBackendsAreCaughtTest.InstalledSuite.installed = null;
                    }
                    List<String> failed = events.failed().list().stream()
                            .map(e -> e.getTestDescriptor().getDisplayName()).toList();
                    assertEquals(1, failed.size(), v + " must fail exactly its own rule; it failed " + failed);
                    assertTrue(failed.get(0).startsWith("[" + v.rule().name() + "] "), v + " failed " + failed);
                }));
    }
}
