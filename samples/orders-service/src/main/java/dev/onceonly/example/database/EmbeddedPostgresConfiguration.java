package dev.onceonly.example.database;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Starts a real PostgreSQL inside this process when no {@code spring.datasource.url} is set, so the service runs
 * with one command and nothing installed. Given {@code spring.datasource.*}, Spring Boot's own data source is used
 * instead, and several instances can share that database.
 */
@Configuration(proxyBeanMethods = false)
@Conditional(EmbeddedPostgresConfiguration.NoDataSourceUrl.class)
public class EmbeddedPostgresConfiguration {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedPostgresConfiguration.class);

    @Bean(destroyMethod = "close")
    EmbeddedPostgres embeddedPostgres() throws IOException {
        EmbeddedPostgres postgres = EmbeddedPostgres.builder().start();
        log.info("Started an embedded PostgreSQL on port {}; set spring.datasource.url to use another database",
                postgres.getPort());
        return postgres;
    }

    @Bean(destroyMethod = "close")
    HikariDataSource dataSource(EmbeddedPostgres postgres) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(postgres.getJdbcUrl("postgres", "postgres"));
        config.setPoolName("orders-embedded");
        config.setMaximumPoolSize(16);
        return new HikariDataSource(config);
    }

    /** Matches when the configuration names no database. */
    static final class NoDataSourceUrl implements Condition {
        @Override
        public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
            return !context.getEnvironment().containsProperty("spring.datasource.url");
        }
    }
}
