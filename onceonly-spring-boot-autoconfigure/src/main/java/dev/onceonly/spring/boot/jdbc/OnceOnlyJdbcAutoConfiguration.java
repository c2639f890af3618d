package dev.onceonly.spring.boot.jdbc;

import dev.onceonly.IdempotencyConfigurationException;
import dev.onceonly.TransactionRunner;
import dev.onceonly.jdbc.DatabaseClock;
import dev.onceonly.jdbc.JdbcDialect;
import dev.onceonly.jdbc.JdbcIdempotencyStore;
import dev.onceonly.jdbc.JdbcSchema;
import dev.onceonly.jdbc.MariaDbDialect;
import dev.onceonly.jdbc.PostgresDialect;
import dev.onceonly.jdbc.SpringTransactionRunner;
import dev.onceonly.jdbc.SqlFailure;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spi.Purgeable;
import dev.onceonly.spring.boot.OnceOnlyAutoConfiguration;
import dev.onceonly.spring.boot.OnceOnlyClock;
import dev.onceonly.spring.boot.OnceOnlyProperties;
import dev.onceonly.spring.boot.PeriodicTask;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.ClassUtils;

/**
 * The JDBC store on the application's {@code DataSource}, the dialect detected from the database, the schema
 * applied at startup ({@code onceonly.jdbc.schema-init}), and transactional mode through the transaction manager.
 * Backs off entirely when the application defines its own {@link IdempotencyStore}.
 */
@AutoConfiguration(before = OnceOnlyAutoConfiguration.class, afterName = {
    "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
    "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
    "org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration",
    "org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration"})
@ConditionalOnClass(JdbcIdempotencyStore.class)
@ConditionalOnBean(DataSource.class)
@ConditionalOnMissingBean(IdempotencyStore.class)
@ConditionalOnBooleanProperty(name = "onceonly.enabled", matchIfMissing = true)
public class OnceOnlyJdbcAutoConfiguration {

    private static final Logger log = LoggerFactory.getLogger(OnceOnlyJdbcAutoConfiguration.class);

    @Bean
    @ConditionalOnMissingBean
    JdbcDialect onceOnlyJdbcDialect(DataSource dataSource) {
        String product;
        String version;
        try (Connection connection = dataSource.getConnection()) {
            product = connection.getMetaData().getDatabaseProductName();
            version = connection.getMetaData().getDatabaseProductVersion();
        } catch (SQLException e) {
            // Only the codes, no cause: the database's message can quote user names or other connection values.
            throw new DatabaseUnreachableException(SqlFailure.of(e));
        }
        return dialectFor(product, version);
    }

    /**
     * The dialect of a database, by the product name and version its driver reports. MySQL's driver calls a MariaDB
     * server "MySQL", with "MariaDB" in the version; a MySQL server is refused (issue 39: it was given the MariaDB
     * dialect, and every claim then failed on {@code SET STATEMENT}, which MySQL lacks).
     */
    static JdbcDialect dialectFor(String product, String version) {
        String name = product.toLowerCase(Locale.ROOT);
        if (name.contains("postgres")) {
            return new PostgresDialect();
        }
        boolean mariaDbServer = version.toLowerCase(Locale.ROOT).contains("mariadb");
        if (name.contains("mariadb") || name.contains("mysql") && mariaDbServer) {
            return new MariaDbDialect();
        }
        if (name.contains("mysql")) {
            throw IdempotencyConfigurationException.of("JdbcDialect", "OnceOnly does not support MySQL (" + version
                    + ") yet: its claims bound their lock waits with MariaDB's SET STATEMENT, which MySQL lacks",
                    "Use PostgreSQL or MariaDB 10.6+ for the idempotency records, or define a JdbcDialect bean of "
                    + "your own for MySQL");
        }
        throw IdempotencyConfigurationException.of("JdbcDialect", "OnceOnly has no SQL dialect for " + product
                + "; define a JdbcDialect bean");
    }

    /** After the application's own migrations, which may create the schema the table goes into. */
    @Bean
    @DependsOnDatabaseInitialization
    JdbcIdempotencyStore idempotencyStore(DataSource dataSource, JdbcDialect dialect, OnceOnlyProperties properties) {
        if (properties.jdbc().schemaInit()) {
            if (!ClassUtils.isPresent("org.flywaydb.core.Flyway", getClass().getClassLoader())) {
                throw IdempotencyConfigurationException.of("onceonly.jdbc.schema-init", "needs Flyway on the class "
                        + "path: add your database's Flyway module (org.flywaydb:flyway-database-postgresql or "
                        + "org.flywaydb:flyway-mysql), or set it to false if you create the table yourself");
            }
            JdbcSchema.migrate(dataSource, dialect);
        }
        JdbcIdempotencyStore store;
        try {
            store = JdbcIdempotencyStore.create(dataSource, dialect, properties.jdbc().tableName());
        } catch (IdempotencyConfigurationException e) {
            throw e.renamed("onceonly.jdbc.table-name");
        }
        Duration audit = properties.retention().audit();
        if (audit == null) {
            return store;
        }
        try {
            JdbcIdempotencyStore auditing = store.keepingAudit(audit);
            auditing.requireAuditTable();
            return auditing;
        } catch (IdempotencyConfigurationException e) {
            throw e.renamed("onceonly.retention.audit");
        }
    }

    /**
     * The audit table's expired rows, for the background cleanup: in audit mode, and wherever the bundled
     * migrations created the table (rows left from audit mode switched off go too).
     */
    @Bean
    @ConditionalOnMissingBean(name = "onceOnlyAuditTrail")
    @Nullable Purgeable onceOnlyAuditTrail(JdbcIdempotencyStore store, OnceOnlyProperties properties) {
        return store.keepsAudit() || properties.jdbc().schemaInit() ? store.auditTrail() : null;
    }

    /**
     * OnceOnly's clock on the database's time, measured at startup and every {@code onceonly.jdbc.clock-sync} after:
     * leases and expiries are instants that one instance writes and another compares, so a host whose clock is off
     * by more than a lease would take over live attempts, and one off by more than a retention would run finished
     * requests again (issue 39). The application's clock where that is {@code 0s}, or the dialect cannot read
     * the database's time.
     */
    @Bean
    @ConditionalOnMissingBean
    OnceOnlyClock onceOnlyDatabaseClock(DataSource dataSource, JdbcDialect dialect, ObjectProvider<Clock> clock,
            OnceOnlyProperties properties) {
        Clock host = clock.getIfAvailable(Clock::systemUTC);
        if (properties.jdbc().clockSync().isZero()) {
            return new OnceOnlyClock(host);
        }
        if (!DatabaseClock.supports(dialect)) {
            log.warn("The JDBC dialect {} cannot read the database's time: OnceOnly keeps the host's clock, and "
                    + "instances must keep theirs synchronised (onceonly.jdbc.clock-sync)", dialect.name());
            return new OnceOnlyClock(host);
        }
        return new OnceOnlyClock(DatabaseClock.of(dataSource, dialect, host));
    }

    @Bean
    @Nullable PeriodicTask onceOnlyClockSync(OnceOnlyClock clock, OnceOnlyProperties properties) {
        if (!(clock.clock() instanceof DatabaseClock databaseClock)) {
            return null;
        }
        Duration interval = properties.jdbc().clockSync();
        return new PeriodicTask("onceonly-clock-sync", interval, interval, databaseClock::synchronize);
    }

    @Bean
    @ConditionalOnMissingBean(TransactionRunner.class)
    @ConditionalOnBean(PlatformTransactionManager.class)
    SpringTransactionRunner onceOnlyTransactionRunner(PlatformTransactionManager transactionManager) {
        return new SpringTransactionRunner(new TransactionTemplate(transactionManager));
    }
}
