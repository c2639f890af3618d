package dev.onceonly.spring.boot.async;

import com.github.kagkarlsson.scheduler.task.CompletionHandler;
import com.github.kagkarlsson.scheduler.task.ExecutionContext;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.OutcomeCodec;
import dev.onceonly.Resumption;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * Runs a queued operation's next attempt through the engine, which decides from the record whether one is due,
 * and keeps its task until the record has its final outcome. The task is only the reminder: a task run twice
 * (a worker that db-scheduler thought dead) finds the record finished, or held by the other run's lease.
 */
final class OperationWorker {

    private static final Logger log = LoggerFactory.getLogger(OperationWorker.class);
    /** When to look again at a task of an operation this instance does not know, such as during a deployment. */
    private static final Duration UNKNOWN_OPERATION_RETRY = Duration.ofMinutes(1);

    private final IdempotencyEngine engine;
    private final Map<String, AsynchronousOperation<?>> operations;
    private final JsonMapper json;
    private final Clock clock;

    OperationWorker(IdempotencyEngine engine, Iterable<AsynchronousOperation<?>> operations, JsonMapper json,
            Clock clock) {
        this.engine = engine;
        this.operations = StreamSupport.stream(operations.spliterator(), false)
                .collect(Collectors.toUnmodifiableMap(AsynchronousOperation::name, Function.identity()));
        this.json = json;
        this.clock = clock;
    }

    CompletionHandler<OperationTask> execute(TaskInstance<OperationTask> instance, ExecutionContext context) {
        OperationTask task = instance.getData();
        AsynchronousOperation<?> operation = operations.get(task.operation());
        if (operation == null) {
            log.error("No AsynchronousOperation bean named '{}' on this instance; its task waits {}",
                    task.operation(), UNKNOWN_OPERATION_RETRY);
            return (complete, ops) -> ops.reschedule(complete, clock.instant().plus(UNKNOWN_OPERATION_RETRY));
        }
        Resumption next = resume(task.scope(), operation, task.payload());
        return switch (next) {
            case Resumption.Done done -> (complete, ops) -> ops.remove();
            case Resumption.RetryAt retry -> (complete, ops) -> ops.reschedule(complete, retry.at());
        };
    }

    private <P> Resumption resume(IdempotencyScope scope, AsynchronousOperation<P> operation, String payload) {
        P value = json.readValue(payload, operation.payloadType());
        return engine.resume(scope, OutcomeCodec.identity(), attempt -> operation.run(attempt, value));
    }
}
