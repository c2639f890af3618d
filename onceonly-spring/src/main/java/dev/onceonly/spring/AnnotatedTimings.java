package dev.onceonly.spring;

import dev.onceonly.IdempotencyConfigurationException;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.OperationPolicy;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.format.datetime.standard.DurationFormatterUtils;

/**
 * The wait and the retentions an annotation ({@code @Idempotent}, {@code @IdempotentMethod}) gives as text, such as
 * {@code "2s"} or {@code "7d"}; a blank one keeps the engine's.
 *
 * @param waitTimeout how long a duplicate waits for the first call
 * @param succeeded how long a success is kept
 * @param failed how long a final failure is kept
 * @param abandoned how long a record whose attempt never ended is kept after its lease
 */
public record AnnotatedTimings(String waitTimeout, String succeeded, String failed, String abandoned) {

    /**
     * {@code policy} with these timings, where they are set.
     *
     * @param engine the engine whose retention a partly set one completes
     * @param where the annotation and its method, for the message of a refusal
     * @throws IdempotencyConfigurationException naming the attribute that is not a duration or not a valid retention
     */
    public OperationPolicy applyTo(OperationPolicy policy, IdempotencyEngine engine, String where) {
        OperationPolicy timed = policy;
        Duration wait = duration(where + " waitTimeout", waitTimeout);
        if (wait != null) {
            try {
                timed = timed.withWaitTimeout(wait);
            } catch (IdempotencyConfigurationException e) {
                throw e.renamed(where + " waitTimeout");
            }
        }
        Duration succeededRetention = duration(where + " retention", succeeded);
        Duration failedRetention = duration(where + " failedRetention", failed);
        Duration abandonedRetention = duration(where + " abandonedRetention", abandoned);
        if (succeededRetention == null && failedRetention == null && abandonedRetention == null) {
            // The engine's own: an endpoint that sets nothing runs on its engine as it is.
            return timed;
        }
        try {
            return timed.withRetention(engine.retention().overriddenBy(succeededRetention, failedRetention,
                    abandonedRetention));
        } catch (IdempotencyConfigurationException e) {
            throw e.renamed(where + " " + e.setting());
        }
    }

    private static @Nullable Duration duration(String where, String value) {
        if (value.isBlank()) {
            return null;
        }
        try {
            return DurationFormatterUtils.detectAndParse(value);
        } catch (IllegalArgumentException e) {
            throw IdempotencyConfigurationException.of(where, "'" + value + "' is not a duration such as 2s or 7d");
        }
    }
}
