package dev.onceonly.redis;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
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

    /**
     * Issue 42: OnceOnly's calls went through the application's client resources, which Spring Boot gives a
     * Micrometer observation per command, and Lettuce a latency histogram: about as much of the service's CPU as
     * the call. Its own connection shares the application's event loops, not its recording.
     */
    @Test
    void onceOnlysCommandsShareTheApplicationsEventLoopsButAreNotRecorded() {
        AtomicInteger recorded = new AtomicInteger();
        ClientResources resources = DefaultClientResources.builder()
                .commandLatencyRecorder((local, remote, type, firstResponse, completion) -> recorded.incrementAndGet())
                .build();
        LettuceConnectionFactory application = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration("127.0.0.1", TestRedis.SHARED_PORT),
                LettuceClientConfiguration.builder().clientResources(resources).build());
        application.afterPropertiesSet();
        LettuceConnectionFactory onceOnly = FailFastLettuce.derivedFrom(application, Duration.ofMillis(200));
        onceOnly.afterPropertiesSet();
        try {
            try (RedisConnection connection = onceOnly.getConnection()) {
                assertThat(connection.ping()).isEqualTo("PONG");
            }
            assertThat(recorded).as("OnceOnly's command, recorded").hasValue(0);
            try (RedisConnection connection = application.getConnection()) {
                assertThat(connection.ping()).isEqualTo("PONG");
            }
            assertThat(recorded).as("the application's commands (its handshake too), recorded").hasPositiveValue();

            ClientResources derived = onceOnly.getClientConfiguration().getClientResources().orElseThrow();
            assertThat(derived.eventLoopGroupProvider()).isSameAs(resources.eventLoopGroupProvider());
            assertThat(derived.tracing().isEnabled()).isFalse();
        } finally {
            onceOnly.destroy();
            application.destroy();
            resources.shutdown();
        }
    }
}
