package io.blockxfer.multihost;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Skips the container suite, with the reason, where no engine or image is available (a laptop
 * without Docker); with {@code -Dblockxfer.multihost.require=true} it lets the tests run so that
 * {@link Testbed} fails them with the same reason instead. Used in place of
 * {@code @Testcontainers(disabledWithoutDocker = true)}, which can only skip.
 *
 * <p><b>Thread safety:</b> stateless.
 */
final class PeerHostsCondition implements ExecutionCondition {

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        return Preflight.problem()
                .map(p -> MultihostSettings.get().require()
                        ? ConditionEvaluationResult.enabled("required, so it will fail: " + p)
                        : ConditionEvaluationResult.disabled(p))
                .orElseGet(() -> ConditionEvaluationResult.enabled("Docker engine and peer image present"));
    }
}
