package io.blockxfer.tck.directory;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.DisplayNameGenerator;

/**
 * Names the directory suite's tests after their rules ({@code [D3] (required) ...}) and its groups
 * after their areas. A test without {@link DirectoryRuleTest} gets a name that says so (and fails
 * in the suite's set-up).
 *
 * <p><b>Thread safety:</b> stateless.
 */
public final class DirectoryRuleNames extends DisplayNameGenerator.Standard {

    /** For JUnit. */
    public DirectoryRuleNames() {
    }

    @Override
    public String generateDisplayNameForNestedClass(List<Class<?>> enclosingInstanceTypes, Class<?> nestedClass) {
        switch (nestedClass.getSimpleName()) {
            case "Directories" -> {
                return "D: " + DirectoryRules.Area.DIRECTORY.name().toLowerCase(Locale.ROOT);
            }
            case "Scopes" -> {
                return "D: " + DirectoryRules.Area.SCOPES.name().toLowerCase(Locale.ROOT);
            }
            case "Memberships" -> {
                return "B: " + DirectoryRules.Area.MEMBERSHIP.name().toLowerCase(Locale.ROOT);
            }
            case "OnDemand" -> {
                return "B: " + DirectoryRules.Area.ON_DEMAND.name().toLowerCase(Locale.ROOT).replace('_', ' ');
            }
            default -> {
                return super.generateDisplayNameForNestedClass(enclosingInstanceTypes, nestedClass);
            }
        }
    }

    @Override
    public String generateDisplayNameForMethod(List<Class<?>> enclosingInstanceTypes, Class<?> testClass,
            Method testMethod) {
        DirectoryRuleTest rule = testMethod.getAnnotation(DirectoryRuleTest.class);
        if (rule == null) {
            return "[?] " + testMethod.getName() + " (not a directory rule: declare it with @DirectoryRuleTest)";
        }
        return rule.value().displayName();
    }
}
