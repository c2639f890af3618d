package dev.onceonly.spring.boot;

import dev.onceonly.IdempotencyConfigurationException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;

/**
 * Reports OnceOnly's startup failures in Boot's "Description:" and "Action:" form. Ahead of Boot's own
 * analyzers, so that a property OnceOnly refused while binding is reported with OnceOnly's action.
 */
public final class IdempotencyConfigurationFailureAnalyzer
        extends AbstractFailureAnalyzer<IdempotencyConfigurationException> implements Ordered {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, IdempotencyConfigurationException cause) {
        return new FailureAnalysis("OnceOnly refused the setting '" + cause.setting() + "': " + cause.problem()
                + ".", cause.action(), cause);
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
