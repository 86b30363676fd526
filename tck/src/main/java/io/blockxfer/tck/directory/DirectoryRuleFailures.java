package io.blockxfer.tck.directory;

import java.lang.reflect.Method;
import java.util.Optional;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;
import org.opentest4j.TestAbortedException;

/**
 * Makes every failure of a directory rule name the rule and the deployment: an exception the
 * directory throws where the rule did not expect one becomes an {@link AssertionError} whose
 * message starts with {@code [ID] deployment: unexpected ...}.
 *
 * <p><b>Thread safety:</b> stateless.
 */
public final class DirectoryRuleFailures implements InvocationInterceptor {

    /** For JUnit. */
    public DirectoryRuleFailures() {
    }

    @Override
    public void interceptTestMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> invocationContext,
            ExtensionContext extensionContext) throws Throwable {
        DirectoryRuleTest rule = invocationContext.getExecutable().getAnnotation(DirectoryRuleTest.class);
        try {
            invocation.proceed();
        } catch (TestAbortedException e) {
            throw e;
        } catch (Throwable t) {
            String id = rule == null ? "?" : rule.value().name();
            if (String.valueOf(t.getMessage()).contains("[" + id + "]")) {
                throw t;
            }
            Optional<DirectoryConformanceSuite> suite = extensionContext.getRequiredTestInstances().getAllInstances()
                    .stream().filter(DirectoryConformanceSuite.class::isInstance)
                    .map(DirectoryConformanceSuite.class::cast).findFirst();
            String where = suite.map(DirectoryConformanceSuite::describeDeployment).orElse("?");
            throw new AssertionError("[" + id + "] " + where + ": unexpected " + t, t);
        }
    }
}
