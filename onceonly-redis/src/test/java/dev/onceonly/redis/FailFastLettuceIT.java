package dev.onceonly.redis;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** The fail-fast connection settings, on the shared Redis. */
class FailFastLettuceIT {

    /**
     * Issue 41: on NIO, Lettuce warned at every connect that it could not apply the TCP user timeout the settings
     * asked for; they ask for it only on a transport that has it.
     */
    @Test
    void connectingLogsNoWarningOfLettuce() {
        Logger connections = (Logger) LoggerFactory.getLogger("io.lettuce.core.ConnectionBuilder");
        ListAppender<ILoggingEvent> warnings = new ListAppender<>();
        warnings.start();
        connections.addAppender(warnings);
        LettuceConnectionFactory factory = TestRedis.failFast(TestRedis.SHARED_PORT);
        try (RedisConnection connection = factory.getConnection()) {
            assertThat(connection.ping()).isEqualTo("PONG");
        } finally {
            factory.destroy();
            connections.detachAppender(warnings);
        }

        assertThat(warnings.list).filteredOn(event -> event.getLevel().isGreaterOrEqual(Level.WARN))
                .extracting(ILoggingEvent::getFormattedMessage).isEmpty();
    }
}
