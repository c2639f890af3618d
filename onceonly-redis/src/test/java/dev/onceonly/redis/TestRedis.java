package dev.onceonly.redis;

import java.time.Duration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/** Connections to a test Redis with the settings the starter ships. */
public final class TestRedis {

    /** The shared Redis the tests use while it is up: 127.0.0.1:6379 unless {@code onceonly.test.redis.port}. */
    public static final int SHARED_PORT = Integer.getInteger("onceonly.test.redis.port", 6379);
    /** The command timeout of test connections. */
    public static final Duration TIMEOUT = Duration.ofMillis(250);

    private TestRedis() {
    }

    /** Fail-fast connections to the shared Redis, one factory for the test JVM. */
    public static LettuceConnectionFactory shared() {
        return Shared.CONNECTIONS;
    }

    /** A template over {@link #shared()}. */
    public static StringRedisTemplate sharedTemplate() {
        return Shared.TEMPLATE;
    }

    private static final class Shared {
        static final LettuceConnectionFactory CONNECTIONS = failFast(SHARED_PORT);
        static final StringRedisTemplate TEMPLATE = new StringRedisTemplate(CONNECTIONS);
    }

    /** A started factory for 127.0.0.1:{@code port} that fails fast; destroy it after use. */
    public static LettuceConnectionFactory failFast(int port) {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1",
                port), FailFastLettuce.clientConfiguration(TIMEOUT, false));
        factory.afterPropertiesSet();
        factory.start();
        return factory;
    }
}
