package dev.onceonly.spring.boot.async;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.Attempt;
import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.StoredResponse;
import dev.onceonly.spring.async.AsynchronousOperation;
import dev.onceonly.spring.async.AsynchronousOperations;
import dev.onceonly.spring.boot.OnceOnlyAutoConfiguration;
import dev.onceonly.spring.boot.jdbc.OnceOnlyJdbcAutoConfiguration;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Against the real PostgreSQL: the workers of asynchronous operations follow the application's lifecycle. */
class OnceOnlyAsynchronousAutoConfigurationIT {

    private static final String URL = System.getProperty("onceonly.test.postgres.url",
            "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
    /**
     * A database of this test's own: the workers of the contexts other tests keep cached poll the task table of the
     * shared one, and one that picked this test's task, not knowing its operation, put it back for a minute.
     */
    private static final String DATABASE = "onceonly_async_lifecycle";
    private static final String OPERATION = "lifecycle-" + UUID.randomUUID();

    private final CountDownLatch ran = new CountDownLatch(1);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                    DataSourceTransactionManagerAutoConfiguration.class, OnceOnlyJdbcAutoConfiguration.class,
                    OnceOnlyAutoConfiguration.class, OnceOnlyAsynchronousAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=" + URL.replaceFirst("/[^/?]+(\\?|$)", "/" + DATABASE + "$1"),
                    "onceonly.async.polling-interval=1s")
            .withBean(AsynchronousOperation.class, () -> new CountingOperation(ran));

    @BeforeAll
    static void createDatabase() throws SQLException {
        try (Connection server = DriverManager.getConnection(URL); Statement sql = server.createStatement()) {
            sql.execute("DROP DATABASE IF EXISTS " + DATABASE + " WITH (FORCE)");
            sql.execute("CREATE DATABASE " + DATABASE);
        }
    }

    // A stopped Scheduler cannot start again: the context's restart failed with a RejectedExecutionException.
    @Test
    void workersRunOperationsAfterTheApplicationWasStoppedAndStartedAgain() {
        runner.run(context -> {
            context.stop();
            context.start();

            context.getBean(AsynchronousOperations.class).submit(
                    IdempotencyScope.of("owner", OPERATION, IdempotencyKey.of(UUID.randomUUID().toString())),
                    Fingerprint.builder().method("POST").route("/lifecycle").build(), "payload");

            assertThat(ran.await(60, TimeUnit.SECONDS)).isTrue();
        });
    }

    private record CountingOperation(CountDownLatch ran) implements AsynchronousOperation<String> {

        @Override
        public String name() {
            return OPERATION;
        }

        @Override
        public Class<String> payloadType() {
            return String.class;
        }

        @Override
        public StoredResponse run(Attempt attempt, String payload) {
            ran.countDown();
            return StoredResponse.of(200, "done".getBytes(StandardCharsets.UTF_8));
        }
    }
}
