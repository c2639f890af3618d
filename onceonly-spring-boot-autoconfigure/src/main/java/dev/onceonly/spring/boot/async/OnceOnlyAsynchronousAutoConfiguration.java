package dev.onceonly.spring.boot.async;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerBuilder;
import com.github.kagkarlsson.scheduler.task.FailureHandler;
import com.github.kagkarlsson.scheduler.task.Task;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.jdbc.JdbcDialect;
import dev.onceonly.jdbc.PostgresDialect;
import dev.onceonly.spring.async.AsynchronousOperation;
import dev.onceonly.spring.async.AsynchronousOperations;
import dev.onceonly.spring.async.JsonTaskSerializer;
import dev.onceonly.spring.async.OperationOutcomes;
import dev.onceonly.spring.async.OperationQueue;
import dev.onceonly.spring.async.OperationTask;
import dev.onceonly.spring.async.OperationWorker;
import dev.onceonly.spring.boot.OnceOnlyAutoConfiguration;
import dev.onceonly.spring.boot.OnceOnlyProperties;
import dev.onceonly.spring.boot.jdbc.OnceOnlyJdbcAutoConfiguration;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import tools.jackson.databind.json.JsonMapper;

/**
 * Asynchronous operations on db-scheduler, when it is on the class path: its task table
 * ({@code onceonly_scheduled_task}, created by the JDBC schema) in the store's database, the workers that run the
 * {@link AsynchronousOperation} beans, and {@link AsynchronousOperations} to submit them.
 *
 * <p>db-scheduler is the durable part: tasks are picked on every instance at once without two taking one
 * ({@code FOR UPDATE SKIP LOCKED} on PostgreSQL, an optimistic version check on MariaDB), an instance that dies
 * mid-task is noticed by its missed heartbeats and its task runs again elsewhere. The idempotency record stays the
 * truth: a task run twice finds it finished or leased.
 */
@AutoConfiguration(after = {OnceOnlyAutoConfiguration.class, OnceOnlyJdbcAutoConfiguration.class},
        afterName = "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration")
@ConditionalOnClass({Scheduler.class, JdbcDialect.class, JsonMapper.class})
@ConditionalOnBean({IdempotencyEngine.class, DataSource.class, JdbcDialect.class})
@ConditionalOnBooleanProperty(name = "onceonly.enabled", matchIfMissing = true)
public class OnceOnlyAsynchronousAutoConfiguration {

    /** The name of the task that runs every asynchronous operation's next attempt. */
    static final String TASK_NAME = "onceonly-operation";
    /** The task table, created by onceonly-jdbc's migration V4. */
    static final String TABLE = "onceonly_scheduled_task";
    /** When a task whose run failed outright (the database was unreachable) is tried again. */
    private static final Duration FAILED_RUN_RETRY = Duration.ofSeconds(10);

    @Bean
    Task<OperationTask> onceonlyOperationTask(IdempotencyEngine engine,
            ObjectProvider<AsynchronousOperation<?>> operations, ObjectProvider<JsonMapper> json,
            ObjectProvider<OperationOutcomes> outcomes) {
        OperationWorker worker = new OperationWorker(engine, operations.orderedStream().toList(),
                json.getIfAvailable(JsonMapper::new), engine.clock(),
                outcomes.getIfAvailable(() -> OperationOutcomes.AS_RETURNED));
        return Tasks.custom(TASK_NAME, OperationTask.class)
                .onFailure(new FailureHandler.OnFailureRetryLater<>(FAILED_RUN_RETRY))
                .execute(worker::execute);
    }

    /**
     * Hands db-scheduler the data source wrapped so that a task scheduled inside a Spring transaction joins it;
     * the store and the transaction manager keep the plain one.
     */
    @Bean
    OperationQueue onceonlyOperationQueue(DataSource dataSource, JdbcDialect dialect, Task<OperationTask> task,
            IdempotencyEngine engine, ObjectProvider<JsonMapper> json, OnceOnlyProperties properties) {
        // The engine's clock for the tasks too: the database's time with onceonly.jdbc.clock-sync, on which every
        // instance agrees when a task is due and whose heartbeat is missing.
        Clock clock = engine.clock();
        OnceOnlyProperties.Async async = properties.async();
        SchedulerBuilder builder = Scheduler.create(new TransactionAwareDataSourceProxy(dataSource),
                        List.<Task<?>>of(task))
                .tableName(TABLE)
                .serializer(new JsonTaskSerializer(json.getIfAvailable(JsonMapper::new)))
                .threads(async.threads())
                .pollingInterval(async.pollingInterval())
                .heartbeatInterval(async.heartbeatInterval())
                .missedHeartbeatsLimit(async.missedHeartbeats())
                .shutdownMaxWait(async.shutdownWait())
                .clock(clock::instant);
        if (dialect instanceof PostgresDialect) {
            builder.pollUsingLockAndFetch(0.5, 1.0);
        } else {
            // db-scheduler has no lock-and-fetch for MariaDB; its default picks with a version check instead.
            builder.alwaysPersistTimestampInUTC();
        }
        return new OperationQueue(builder.build(), task, clock, async.enabled());
    }

    @Bean
    @ConditionalOnMissingBean
    AsynchronousOperations asynchronousOperations(IdempotencyEngine engine, OperationQueue queue,
            ObjectProvider<JsonMapper> json, ObjectProvider<AsynchronousOperation<?>> operations) {
        return new AsynchronousOperations(engine, queue, json.getIfAvailable(JsonMapper::new),
                operations.orderedStream().map(AsynchronousOperation::name).collect(Collectors.toSet()));
    }
}
