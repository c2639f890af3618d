package dev.onceonly.jdbc;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.IdempotencyConfigurationException;
import org.junit.jupiter.api.Test;

class JdbcSchemaTest {

    // issue 8: without the Flyway database module, Flyway only says "Unsupported Database"
    @Test
    void missingFlywayDatabaseModuleIsNamedWithWhatToAdd() {
        JdbcDialect.FlywayModule absent = new JdbcDialect.FlywayModule("org.example:flyway-none",
                "org.example.flyway.NoSuchDatabaseType");

        assertThatThrownBy(() -> JdbcSchema.requirePresent(absent, new PostgresDialect()))
                .isInstanceOf(IdempotencyConfigurationException.class)
                .hasMessageContaining("Add org.example:flyway-none")
                .hasMessageContaining("classpath:dev/onceonly/jdbc/schema/postgresql");
    }

    @Test
    void bundledDialectsNameModulesThatArePresentWhenAdded() {
        for (JdbcDialect dialect : new JdbcDialect[] {new PostgresDialect(), new MariaDbDialect()}) {
            assertThatCode(() -> JdbcSchema.requirePresent(dialect.flywayModule(), dialect))
                    .doesNotThrowAnyException();
        }
    }
}
