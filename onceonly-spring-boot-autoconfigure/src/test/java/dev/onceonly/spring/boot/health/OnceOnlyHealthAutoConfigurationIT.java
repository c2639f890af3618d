package dev.onceonly.spring.boot.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.jdbc.JdbcDialect;
import dev.onceonly.jdbc.PostgresDialect;
import dev.onceonly.memory.InMemoryIdempotencyStore;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spring.boot.OnceOnlyAutoConfiguration;
import dev.onceonly.spring.boot.jdbc.OnceOnlyJdbcAutoConfiguration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The store's health indicator, on the real PostgreSQL store and on databases it cannot reach. */
class OnceOnlyHealthAutoConfigurationIT {

    private static final String URL = System.getProperty("onceonly.test.postgres.url",
            "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                    DataSourceTransactionManagerAutoConfiguration.class, OnceOnlyJdbcAutoConfiguration.class,
                    OnceOnlyAutoConfiguration.class, OnceOnlyHealthAutoConfiguration.class));

    @Test
    void storeThatAnswersIsUp() {
        runner.withPropertyValues("spring.datasource.url=" + URL).run(context -> {
            Health health = context.getBean("onceOnlyHealthIndicator", HealthIndicator.class).health();

            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails()).isEmpty();
        });
    }

    @Test
    void unreachableDatabaseIsDownWithTheExceptionTypeAndSqlStateOnly() {
        startedWithoutDatabase("jdbc:postgresql://127.0.0.1:1/test?user=postgres").run(context -> {
            Health health = context.getBean("onceOnlyHealthIndicator", HealthIndicator.class).health();

            assertThat(health.getStatus()).isEqualTo(Status.DOWN);
            assertThat(health.getDetails()).containsOnly(
                    Map.entry("error", "dev.onceonly.IdempotencyStoreException"), Map.entry("sqlState", "08001"));
        });
    }

    @Test
    void databaseRefusalIsReportedWithoutTheDatabasesMessage() {
        String marker = "no-such-role-" + UUID.randomUUID();
        startedWithoutDatabase("jdbc:postgresql://127.0.0.1:5432/test?user=" + marker).run(context -> {
            Health health = context.getBean("onceOnlyHealthIndicator", HealthIndicator.class).health();

            assertThat(health.getStatus()).isEqualTo(Status.DOWN);
            assertThat(health.getDetails()).containsKeys("error", "sqlState");
            assertThat(health.toString()).doesNotContain(marker);
        });
    }

    @Test
    void backsOffForTheUsersIndicator() {
        HealthIndicator own = () -> Health.up().withDetail("own", true).build();
        inMemory().withBean("onceOnlyHealthIndicator", HealthIndicator.class, () -> own)
                .run(context -> assertThat(context).doesNotHaveBean(IdempotencyStoreHealthIndicator.class)
                        .getBean("onceOnlyHealthIndicator").isSameAs(own));
    }

    @Test
    void withoutActuatorThereIsNoIndicator() {
        inMemory().withClassLoader(new FilteredClassLoader(HealthIndicator.class))
                .run(context -> assertThat(context).doesNotHaveBean(IdempotencyStoreHealthIndicator.class));
    }

    @Test
    void managementPropertySwitchesItOff() {
        inMemory().withPropertyValues("management.health.onceonly.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(IdempotencyStoreHealthIndicator.class));
    }

    /** As if the database went away after startup: the dialect is given and the schema was applied. */
    private ApplicationContextRunner startedWithoutDatabase(String url) {
        return runner.withBean(JdbcDialect.class, PostgresDialect::new)
                .withPropertyValues("spring.datasource.url=" + url, "spring.datasource.hikari.connection-timeout=2000",
                        "onceonly.jdbc.schema-init=false");
    }

    private ApplicationContextRunner inMemory() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(OnceOnlyAutoConfiguration.class,
                        OnceOnlyHealthAutoConfiguration.class))
                .withBean(IdempotencyStore.class, InMemoryIdempotencyStore::new)
                // An in-memory store has no transactions: leased mode, chosen by name as auto never does.
                .withPropertyValues("onceonly.mode=leased");
    }
}
