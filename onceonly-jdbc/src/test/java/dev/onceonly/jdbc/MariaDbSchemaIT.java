package dev.onceonly.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.sql.Connection;
import java.sql.Statement;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/** The bundled MariaDB migrations, applied to a fresh database the way JdbcSchema applies them. */
class MariaDbSchemaIT {

    // issue 8: the bundled migrations run without warnings.
    @Test
    void bundledMigrationsRunWithoutWarnings() throws Exception {
        String database = "onceonly_it_" + UUID.randomUUID().toString().replace("-", "");
        execute(TestDatabases.mariaDb(), "CREATE DATABASE " + database);
        Logger flyway = (Logger) LoggerFactory.getLogger("org.flywaydb");
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        flyway.addAppender(logged);
        try {
            String url = System.getProperty("onceonly.test.mariadb.url",
                    "jdbc:mariadb://127.0.0.1:3306/test?user=root")
                    .replaceFirst("(jdbc:mariadb://[^/]+/)[^?]*", "$1" + database);

            JdbcSchema.migrate(new DriverManagerDataSource(url), new MariaDbDialect());
        } finally {
            flyway.detachAppender(logged);
            execute(TestDatabases.mariaDb(), "DROP DATABASE " + database);
        }

        assertThat(logged.list).filteredOn(event -> event.getLevel().isGreaterOrEqual(Level.WARN))
                .extracting(ILoggingEvent::getFormattedMessage).isEmpty();
    }

    private static void execute(DataSource dataSource, String sql) throws Exception {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }
}
