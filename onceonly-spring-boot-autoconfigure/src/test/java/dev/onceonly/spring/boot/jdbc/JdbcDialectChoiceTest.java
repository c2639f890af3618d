package dev.onceonly.spring.boot.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.IdempotencyConfigurationException;
import dev.onceonly.jdbc.MariaDbDialect;
import dev.onceonly.jdbc.PostgresDialect;
import org.junit.jupiter.api.Test;

/** The dialect chosen from what the driver reports; the real servers are covered by the ITs. */
class JdbcDialectChoiceTest {

    // issue 39: MySQL got the MariaDB dialect at startup, and every claim then failed.
    @Test
    void mySqlServerIsRefusedAtStartupSayingWhatToDo() {
        assertThatThrownBy(() -> OnceOnlyJdbcAutoConfiguration.dialectFor("MySQL", "8.4.3"))
                .isInstanceOf(IdempotencyConfigurationException.class)
                .hasMessageContaining("does not support MySQL (8.4.3)")
                .hasMessageContaining("PostgreSQL or MariaDB");
    }

    @Test
    void mariaDbServerIsRecognisedWhicheverDriverReportsIt() {
        assertThat(OnceOnlyJdbcAutoConfiguration.dialectFor("MariaDB", "11.4.2-MariaDB"))
                .isInstanceOf(MariaDbDialect.class);
        assertThat(OnceOnlyJdbcAutoConfiguration.dialectFor("MySQL", "5.5.5-10.11.6-MariaDB-0+deb12u1"))
                .as("MySQL's own driver on a MariaDB server").isInstanceOf(MariaDbDialect.class);
        assertThat(OnceOnlyJdbcAutoConfiguration.dialectFor("PostgreSQL", "15.20"))
                .isInstanceOf(PostgresDialect.class);
    }
}
