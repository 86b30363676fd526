package io.blockxfer.tck.holds;

import java.lang.reflect.Method;
import java.util.Optional;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;
import org.opentest4j.TestAbortedException;

/**
 * Makes every failure of a hold rule name the rule and the backend: an exception thrown where the
 * rule did not expect one becomes an {@link AssertionError} whose message starts with
 * {@code [ID] backend (placement): unexpected ...}.
 *
 * <p><b>Thread safety:</b> stateless.
 */
public final class HoldRuleFailures implements InvocationInterceptor {

    /** For JUnit. */
    public HoldRuleFailures() {
    }

    @Override
    public void interceptTestMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> invocationContext,
            ExtensionContext extensionContext) throws Throwable {
        HoldRuleTest rule = invocationContext.getExecutable().getAnnotation(HoldRuleTest.class);
        try {
            invocation.proceed();
        } catch (TestAbortedException e) {
            throw e;
        } catch (Throwable t) {
            String id = rule == null ? "?" : rule.value().name();
            if (String.valueOf(t.getMessage()).contains("[" + id + "]")) {
                throw t;
            }
            Optional<HoldConformanceSuite> suite = extensionContext.getRequiredTestInstances().getAllInstances()
                    .stream().filter(HoldConformanceSuite.class::isInstance).map(HoldConformanceSuite.class::cast)
                    .findFirst();
            String where = suite.map(HoldConformanceSuite::describe).orElse("?");
            throw new AssertionError("[" + id + "] " + where + ": unexpected " + t, t);
        }
    }
}
