package io.blockxfer.tck;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.DisplayNameGenerator;

/**
 * Names the suite's tests after their rules: {@code [W2] (required) a batch WRITE ...}, and its
 * groups after their areas. A test without {@link RuleTest} gets a name that says so (and fails in
 * the suite's set-up).
 *
 * <p><b>Thread safety:</b> stateless.
 */
public final class RuleDisplayNames extends DisplayNameGenerator.Standard {

    /** For JUnit. */
    public RuleDisplayNames() {
    }

    @Override
    public String generateDisplayNameForNestedClass(List<Class<?>> enclosingInstanceTypes, Class<?> nestedClass) {
        for (ConformanceRules.Area area : ConformanceRules.Area.values()) {
            if (nestedClass.getSimpleName().equalsIgnoreCase(area.name())) {
                return area.name().charAt(0) + ": " + area.name().toLowerCase(Locale.ROOT);
            }
        }
        return super.generateDisplayNameForNestedClass(enclosingInstanceTypes, nestedClass);
    }

    @Override
    public String generateDisplayNameForMethod(List<Class<?>> enclosingInstanceTypes, Class<?> testClass,
            Method testMethod) {
        RuleTest rule = testMethod.getAnnotation(RuleTest.class);
        if (rule == null) {
            return "[?] " + testMethod.getName() + " (not a conformance rule: declare it with @RuleTest)";
        }
        return rule.value().displayName();
    }
}
