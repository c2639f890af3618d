package dev.onceonly.spring.async;

import com.github.kagkarlsson.scheduler.task.CompletionHandler;
import com.github.kagkarlsson.scheduler.task.ExecutionContext;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import dev.onceonly.IdempotencyConfigurationException;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.OutcomeUnknownException;
import dev.onceonly.Resumption;
import dev.onceonly.StoredResponse;
import dev.onceonly.spi.IdempotencyRecord;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * Runs a queued operation's next attempt through the engine, which decides from the record whether one is due,
 * and keeps its task until the record has its final outcome. The task is only the reminder: a task run twice
 * (a worker that db-scheduler thought dead) finds the record finished, or held by the other run's lease; a task
 * whose record is gone or finished is removed without running anything.
 */
public final class OperationWorker {

    private static final Logger log = LoggerFactory.getLogger(OperationWorker.class);
    /** When to look again at a task of an operation this instance does not know, such as during a deployment. */
    private static final Duration UNKNOWN_OPERATION_RETRY = Duration.ofMinutes(1);
    private static final String UNREADABLE_PAYLOAD = "https://onceonly.dev/problems/operation-payload-unreadable";

    private final IdempotencyEngine engine;
    private final Map<String, AsynchronousOperation<?>> operations;
    private final JsonMapper json;
    private final Clock clock;
    private final OperationOutcomes outcomes;

    public OperationWorker(IdempotencyEngine engine, List<AsynchronousOperation<?>> operations, JsonMapper json,
            Clock clock, OperationOutcomes outcomes) {
        this.engine = engine;
        this.operations = byName(operations);
        this.json = json;
        this.clock = clock;
        this.outcomes = outcomes;
    }

    private static Map<String, AsynchronousOperation<?>> byName(List<AsynchronousOperation<?>> operations) {
        Map<String, AsynchronousOperation<?>> byName = new HashMap<>();
        for (AsynchronousOperation<?> operation : operations) {
            AsynchronousOperation<?> other = byName.putIfAbsent(operation.name(), operation);
            if (other != null) {
                throw IdempotencyConfigurationException.of("AsynchronousOperation", "two beans, "
                        + other.getClass().getName() + " and " + operation.getClass().getName() + ", are named '"
                        + operation.name() + "'", "Give every asynchronous operation a name of its own");
            }
        }
        return Map.copyOf(byName);
    }

    public CompletionHandler<OperationTask> execute(TaskInstance<OperationTask> instance, ExecutionContext context) {
        OperationTask task = instance.getData();
        IdempotencyScope scope = task.scope();
        AsynchronousOperation<?> operation = operations.get(task.operation());
        if (operation == null) {
            Instant now = clock.instant();
            IdempotencyRecord record = engine.findStored(scope).orElse(null);
            if (record == null || record.isExpired(now) || record.state().isTerminal()) {
                return (complete, ops) -> ops.remove();
            }
            log.error("No AsynchronousOperation bean named '{}' on this instance; its task waits {}",
                    task.operation(), UNKNOWN_OPERATION_RETRY);
            return (complete, ops) -> ops.reschedule(complete, now.plus(UNKNOWN_OPERATION_RETRY));
        }
        // resume reads the record first: a finished or purged one is Done without running anything.
        Resumption next = resume(scope, operation, task.payload());
        return switch (next) {
            case Resumption.Done done -> (complete, ops) -> ops.remove();
            case Resumption.RetryAt retry -> (complete, ops) -> ops.reschedule(complete, retry.at());
        };
    }

    private <P> Resumption resume(IdempotencyScope scope, AsynchronousOperation<P> operation, String payload) {
        P value;
        try {
            value = json.readValue(payload, operation.payloadType());
        } catch (JacksonException unreadable) {
            // Only the type: the parser's message quotes the payload. No attempt can ever read it: end the
            // operation with a final problem rather than retry it forever.
            log.error("The payload of a queued '{}' operation does not read as {} ({}); it ends with a 500 problem",
                    scope.operation(), operation.payloadType().getSimpleName(), unreadable.getClass().getSimpleName());
            StoredResponse problem = unreadablePayload(scope);
            return engine.resume(scope, outcomes.codec(scope.operation()), attempt -> {
                throw OutcomeUnknownException.storing("unreadable payload", problem);
            });
        }
        return engine.resume(scope, outcomes.codec(scope.operation()), attempt -> operation.run(attempt, value));
    }

    private StoredResponse unreadablePayload(IdempotencyScope scope) {
        Map<String, Object> problem = new LinkedHashMap<>();
        problem.put("type", UNREADABLE_PAYLOAD);
        problem.put("title", "Operation payload unreadable");
        problem.put("status", 500);
        problem.put("detail", "The queued '" + scope.operation() + "' operation could not be read by this version "
                + "of the service; it was not run");
        return StoredResponse.of(500, Map.of("Content-Type", List.of("application/problem+json")),
                json.writeValueAsString(problem).getBytes(StandardCharsets.UTF_8), null);
    }
}
