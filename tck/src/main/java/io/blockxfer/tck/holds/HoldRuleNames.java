package io.blockxfer.tck.holds;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.DisplayNameGenerator;

/**
 * Names the hold suite's tests after their rules ({@code [H3] (required) ...}) and its groups after
 * their areas. A test without {@link HoldRuleTest} gets a name that says so (and fails in the
 * suite's set-up).
 *
 * <p><b>Thread safety:</b> stateless.
 */
public final class HoldRuleNames extends DisplayNameGenerator.Standard {

    /** For JUnit. */
    public HoldRuleNames() {
    }

    @Override
    public String generateDisplayNameForNestedClass(List<Class<?>> enclosingInstanceTypes, Class<?> nestedClass) {
        return switch (nestedClass.getSimpleName()) {
            case "HandOffs" -> "H1-H4: " + area(HoldRules.Area.HAND_OFF);
            case "Times" -> "H5-H9: " + area(HoldRules.Area.TIME);
            case "Ends" -> "H10-H14: " + area(HoldRules.Area.ENDS);
            default -> super.generateDisplayNameForNestedClass(enclosingInstanceTypes, nestedClass);
        };
    }

    private static String area(HoldRules.Area a) {
        return a.name().toLowerCase(Locale.ROOT).replace('_', ' ');
    }

    @Override
    public String generateDisplayNameForMethod(List<Class<?>> enclosingInstanceTypes, Class<?> testClass,
            Method testMethod) {
        HoldRuleTest rule = testMethod.getAnnotation(HoldRuleTest.class);
        if (rule == null) {
            return "[?] " + testMethod.getName() + " (not a hold rule: declare it with @HoldRuleTest)";
        }
        return rule.value().displayName();
    }
}
