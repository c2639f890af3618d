package dev.onceonly.spring.boot.jdbc;

import static dev.onceonly.spring.boot.StartupFailure.assertStartupFailure;
import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyMode;
import dev.onceonly.TransactionRunner;
import dev.onceonly.jdbc.JdbcDialect;
import dev.onceonly.jdbc.JdbcIdempotencyStore;
import dev.onceonly.jdbc.PostgresDialect;
import dev.onceonly.memory.InMemoryIdempotencyStore;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spring.boot.OnceOnlyAutoConfiguration;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/** Against the real PostgreSQL: the store is chosen by the beans that exist. */
class OnceOnlyJdbcAutoConfigurationIT {

    private static final String URL = System.getProperty("onceonly.test.postgres.url",
            "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                    DataSourceTransactionManagerAutoConfiguration.class, OnceOnlyJdbcAutoConfiguration.class,
                    OnceOnlyAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=" + URL);

    @Test
    void dataSourceBringsTheJdbcStoreWithItsDialectAndTransactionalMode() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(JdbcIdempotencyStore.class).hasSingleBean(TransactionRunner.class);
            assertThat(context.getBean(JdbcDialect.class)).isInstanceOf(PostgresDialect.class);
            assertThat(context.getBean(IdempotencyEngine.class).mode()).isEqualTo(IdempotencyMode.TRANSACTIONAL);
        });
    }

    // Issue 39: a host clock two hours ahead took over live attempts and ran finished requests again.
    @Test
    void engineRunsOnTheDatabasesTimeWhateverTheApplicationsClockSays() {
        runner.withBean(Clock.class, () -> Clock.offset(Clock.systemUTC(), Duration.ofHours(2))).run(context -> {
            Instant engineNow = context.getBean(IdempotencyEngine.class).clock().instant();

            // The database runs on this machine: its time is this machine's, up to a round trip.
            assertThat(Duration.between(Instant.now(), engineNow).abs()).isLessThan(Duration.ofSeconds(5));
            assertThat(context).hasBean("onceOnlyClockSync");
        });
    }

    @Test
    void clockSyncOfZeroLeavesTheEngineOnTheApplicationsClock() {
        Clock fixed = Clock.fixed(Instant.parse("2100-01-01T00:00:00Z"), ZoneOffset.UTC);
        runner.withBean(Clock.class, () -> fixed).withPropertyValues("onceonly.jdbc.clock-sync=0s")
                .run(context -> assertThat(context.getBean(IdempotencyEngine.class).clock()).isSameAs(fixed));
    }

    @Test
    void backsOffEntirelyForTheUsersStore() {
        runner.withBean(IdempotencyStore.class, InMemoryIdempotencyStore::new)
                .withPropertyValues("onceonly.mode=leased").run(context -> {
            assertThat(context).doesNotHaveBean(JdbcIdempotencyStore.class).doesNotHaveBean(JdbcDialect.class)
                    .doesNotHaveBean(TransactionRunner.class);
            assertThat(context.getBean(IdempotencyStore.class)).isInstanceOf(InMemoryIdempotencyStore.class);
            assertThat(context.getBean(IdempotencyEngine.class).mode()).isEqualTo(IdempotencyMode.LEASED);
        });
    }

    @Test
    void usersStoreBesideTheTransactionManagerStopsStartupInsteadOfRunningLeased() {
        runner.withBean(IdempotencyStore.class, InMemoryIdempotencyStore::new)
                .run(context -> assertStartupFailure(context)
                        .hasMessageContaining("transaction manager but no TransactionRunner")
                        .hasMessageContaining("onceonly.mode=leased"));
    }

    @Test
    void badTableNameStopsStartup() {
        runner.withPropertyValues("onceonly.jdbc.table-name=records;drop", "onceonly.jdbc.schema-init=false")
                .run(context -> assertStartupFailure(context).hasMessageContaining("onceonly.jdbc.table-name"));
    }

    @Test
    void customTableWithTheBundledMigrationsStopsStartup() {
        runner.withPropertyValues("onceonly.jdbc.table-name=my_records")
                .run(context -> assertStartupFailure(context).hasMessageContaining("onceonly.jdbc.schema-init"));
    }

    // issue 8: the SQLException was the startup failure's cause, its message (quoting connection values) printed.
    @Test
    void databaseThatRefusesTheConnectionStopsStartupWithoutTheDatabasesMessage() {
        String marker = "no-such-role-" + UUID.randomUUID();
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(OnceOnlyJdbcAutoConfiguration.class,
                        OnceOnlyAutoConfiguration.class))
                .withBean(DataSource.class, () -> new DriverManagerDataSource(
                        "jdbc:postgresql://127.0.0.1:5432/test?user=" + marker))
                .run(context -> {
                    assertStartupFailure(context).hasMessageContaining("SQLState").hasNoCause();
                    StringWriter printed = new StringWriter();
                    context.getStartupFailure().printStackTrace(new PrintWriter(printed));
                    assertThat(printed.toString()).doesNotContain(marker);
                });
    }

    @Test
    void withoutADataSourceNothingJdbcIsConfigured() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(OnceOnlyJdbcAutoConfiguration.class))
                .run(context -> assertThat(context).doesNotHaveBean(JdbcIdempotencyStore.class)
                        .doesNotHaveBean(DataSource.class));
    }
}
