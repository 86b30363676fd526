package io.blockxfer.cli.internal;

import java.io.PrintWriter;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;

/**
 * Prints one line per conformance rule as it ends, {@code PASS}, {@code FAIL} or {@code SKIP} with
 * the rule's display name (which starts with its id, e.g. {@code [W2]}) and, for failures and
 * skips, the reason. The counts come from JUnit's {@code SummaryGeneratingListener} beside it.
 *
 * <p><b>Thread safety:</b> the launcher calls it from its execution thread.
 */
final class RuleReporter implements TestExecutionListener {

    private final PrintWriter out;

    RuleReporter(PrintWriter out) {
        this.out = out;
    }

    @Override
    public void executionSkipped(TestIdentifier test, String reason) {
        if (test.isTest()) {
            print("SKIP", test, reason);
        }
    }

    @Override
    public void executionFinished(TestIdentifier test, TestExecutionResult result) {
        String reason = result.getThrowable().map(RuleReporter::reason).orElse("");
        if (result.getStatus() == TestExecutionResult.Status.FAILED) {
            print("FAIL", test, reason);
        } else if (test.isTest()) {
            print(result.getStatus() == TestExecutionResult.Status.SUCCESSFUL ? "PASS" : "SKIP", test, reason);
        }
    }

    private void print(String outcome, TestIdentifier test, String reason) {
        String name = test.isTest() ? test.getDisplayName() : "(suite) " + test.getDisplayName();
        out.println(outcome + "  " + name + (reason.isEmpty() ? "" : "\n      " + reason));
        out.flush();
    }

    private static String reason(Throwable t) {
        String message = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        String line = ErrorHandlers.oneLine(message);
        return line.length() > 400 ? line.substring(0, 400) + "..." : line;
    }
}
