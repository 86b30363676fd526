package io.blockxfer.tck;

import java.lang.reflect.Method;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;
import org.opentest4j.TestAbortedException;

/**
 * Makes every failure of a rule name the rule, the backend and the placement: an exception a
 * backend throws where the rule did not expect one (a {@code NullPointerException} from a poll, an
 * {@code IllegalStateException} from a submit) becomes an {@link AssertionError} whose message
 * starts with {@code [ID] backend (mode): unexpected ...}.
 *
 * <p><b>Thread safety:</b> stateless.
 */
public final class RuleFailures implements InvocationInterceptor {

    /** For JUnit. */
    public RuleFailures() {
    }

    @Override
    public void interceptTestMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> invocationContext,
            ExtensionContext extensionContext) throws Throwable {
        RuleTest rule = invocationContext.getExecutable().getAnnotation(RuleTest.class);
        try {
            invocation.proceed();
        } catch (TestAbortedException e) {
            throw e;
        } catch (Throwable t) {
            String id = rule == null ? "?" : rule.value().name();
            java.util.Optional<TransportConformanceSuite> suite = extensionContext.getRequiredTestInstances()
                    .getAllInstances().stream().filter(TransportConformanceSuite.class::isInstance)
                    .map(TransportConformanceSuite.class::cast).findFirst();
            String known = rule == null ? null
                    : suite.map(s -> s.knownViolations().get(rule.value())).orElse(null);
            if (known != null && !(t instanceof VirtualMachineError)) {
                throw new TestAbortedException("[" + id + "] known violation of this backend (" + known
                        + "); it failed with: " + t.getMessage(), t);
            }
            if (String.valueOf(t.getMessage()).contains("[" + id + "]")) {
                throw t;
            }
            String where = suite.map(TransportConformanceSuite::describeHarness).orElse("?");
            throw new AssertionError("[" + id + "] " + where + ": unexpected " + t, t);
        }
    }
}
