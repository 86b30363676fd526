package io.blockxfer.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.List;
import org.junit.platform.engine.FilterResult;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.PostDiscoveryFilter;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;
import org.junit.platform.testkit.engine.Events;

/**
 * Runs one rule of a conformance suite under JUnit's engine test kit, for the tests that prove the
 * kit's rules can fail: the run ({@link #run}), what ended a test ({@link #why}), and the check
 * that a broken variant failed exactly the rule that names its defect
 * ({@link #assertFailedItsRule}). A rule's tests are those whose display name begins with
 * {@code [ID] }.
 *
 * <p><b>Thread safety:</b> stateless; a suite class reads what its caller installed in static
 * fields, so runs of one suite class are one at a time.
 */
public final class RuleRuns {

    private RuleRuns() {
    }

    /** Keeps only the tests of {@code rule}. */
    private static PostDiscoveryFilter only(Enum<?> rule) {
        String prefix = "[" + rule.name() + "] ";
        return d -> !d.isTest() || d.getDisplayName().startsWith(prefix) ? FilterResult.included("rule " + rule)
                : FilterResult.excluded("another rule");
    }

    /** Runs the tests of {@code rule} in {@code suite}; returns their events. */
    public static Events run(Class<?> suite, Enum<?> rule) {
        return EngineTestKit.engine("junit-jupiter").selectors(selectClass(suite)).filters(only(rule)).execute()
                .testEvents();
    }

    /** The message of what ended the test of {@code e}, or {@code (no message)}. */
    public static String why(Event e) {
        return e.getPayload(TestExecutionResult.class).flatMap(TestExecutionResult::getThrowable)
                .map(t -> String.valueOf(t.getMessage())).orElse("(no message)");
    }

    /** What ended each failed test of {@code events}. */
    public static List<String> failures(Events events) {
        return events.failed().list().stream().map(RuleRuns::why).toList();
    }

    /**
     * Checks that {@code events}, a run of {@code rule} over the broken {@code variant}, ran the rule
     * once, neither skipped nor passed it, and failed it with a message naming it.
     *
     * @return that message
     */
    public static String assertFailedItsRule(Events events, Object variant, Enum<?> rule) {
        assertEquals(1, events.started().count(), variant + ": the rule must run once (skipped: "
                + events.skipped().list() + ")");
        assertEquals(0, events.aborted().count(), variant + ": the rule was skipped: " + events.aborted().list().stream()
                .map(RuleRuns::why).toList());
        assertEquals(1, events.failed().count(), variant + ": the broken variant passed its rule");
        String why = why(events.failed().list().get(0));
        assertTrue(why.contains("[" + rule.name() + "]"), variant + ": the failure must name rule " + rule + ": "
                + why);
        return why;
    }
}
