package dev.onceonly.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.event.DefaultEventPublisherOptions;
import io.lettuce.core.metrics.CommandLatencyRecorder;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.EpollProvider;
import io.lettuce.core.resource.IOUringProvider;
import io.lettuce.core.tracing.Tracing;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Lettuce settings for a Redis that is only an accelerator, where waiting is worse than asking the database.
 * Lettuce's defaults suit a Redis that must answer: commands wait 60 s, are queued while disconnected (without
 * bound) and replayed on reconnect, and a peer that vanished without a reset is noticed only when the kernel gives
 * up on the connection, minutes later. Here:
 * <ul>
 *   <li>commands and connects time out after {@code timeout};</li>
 *   <li>commands are rejected at once while disconnected, and the queue is bounded;</li>
 *   <li>TCP keep-alive probes an idle connection after 5 s, every second, three times, and a user timeout drops a
 *       connection whose sent data goes unacknowledged for 5 s (the user timeout needs Netty's native epoll or
 *       io_uring transport, so it is asked for only there: on NIO Lettuce would warn at every connect);</li>
 *   <li>on Redis Cluster, the topology is refreshed on moved and reconnect events.</li>
 * </ul>
 * Reconnection stays on, so Redis is used again as soon as it is back.
 */
public final class FailFastLettuce {

    private static final int QUEUE_SIZE = 1_024;
    private static final Duration KEEP_ALIVE_IDLE = Duration.ofSeconds(5);
    private static final Duration USER_TIMEOUT = Duration.ofSeconds(5);

    private FailFastLettuce() {
    }

    /** A client configuration with the settings above; {@code cluster} for a Redis Cluster. */
    public static LettuceClientConfiguration clientConfiguration(Duration timeout, boolean cluster) {
        return clientConfiguration(LettuceClientConfiguration.builder(), timeout, cluster);
    }

    /** Applies the settings above to {@code builder}, which may carry others already (TLS, a client name). */
    public static LettuceClientConfiguration clientConfiguration(
            LettuceClientConfiguration.LettuceClientConfigurationBuilder builder, Duration timeout, boolean cluster) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, but is " + timeout);
        }
        return builder.commandTimeout(timeout).clientOptions(clientOptions(null, timeout, cluster)).build();
    }

    /**
     * A new (unstarted) factory for the Redis that {@code application} connects to, with its TLS, credentials,
     * client resources (event loops) and read preference, and the settings above: for OnceOnly's own calls, so
     * that the application's connection keeps the settings it chose.
     */
    public static LettuceConnectionFactory derivedFrom(LettuceConnectionFactory application, Duration timeout) {
        if (application.getSocketConfiguration() != null) {
            throw new IllegalArgumentException("a Redis reached over a Unix socket is not supported; give OnceOnly "
                    + "a factory of its own, or switch its Redis layer off");
        }
        LettuceClientConfiguration original = application.getClientConfiguration();
        LettuceClientConfiguration.LettuceClientConfigurationBuilder builder = LettuceClientConfiguration.builder();
        if (original.isUseSsl()) {
            LettuceClientConfiguration.LettuceSslClientConfigurationBuilder ssl = builder.useSsl()
                    .verifyPeer(original.getVerifyMode());
            if (original.isStartTls()) {
                ssl.startTls();
            }
        }
        original.getClientResources().map(FailFastLettuce::unobserved).ifPresent(builder::clientResources);
        original.getReadFrom().ifPresent(builder::readFrom);
        original.getRedisCredentialsProviderFactory().ifPresent(builder::redisCredentialsProviderFactory);
        original.getClientName().ifPresent(name -> builder.clientName(name + "-onceonly"));
        boolean cluster = application.isClusterAware();
        // The application's options carry its TLS trust and protocol settings; only the failing-fast ones change.
        ClientOptions base = original.getClientOptions().orElse(null);
        LettuceClientConfiguration configuration = builder.commandTimeout(timeout)
                .clientOptions(clientOptions(base, timeout, cluster)).build();
        RedisClusterConfiguration clusterConfiguration = application.getClusterConfiguration();
        if (cluster && clusterConfiguration != null) {
            return new LettuceConnectionFactory(clusterConfiguration, configuration);
        }
        RedisSentinelConfiguration sentinelConfiguration = application.getSentinelConfiguration();
        if (application.isRedisSentinelAware() && sentinelConfiguration != null) {
            return new LettuceConnectionFactory(sentinelConfiguration, configuration);
        }
        return new LettuceConnectionFactory(application.getStandaloneConfiguration(), configuration);
    }

    /**
     * The application's resources (event loops, executors, timer, DNS resolver: shared, not copied) without
     * per-command tracing and latency recording. Spring Boot observes every Lettuce command (a Micrometer observation, a
     * timer), and Lettuce records each command's latency in a histogram where HdrHistogram is on the class path:
     * together about as much of the service's CPU as the command itself, for calls that OnceOnly counts itself
     * ({@link RedisOutcomeCache#statistics}). Never shut these down: they share what the application's own
     * resources own, which the application shuts down.
     */
    static ClientResources unobserved(ClientResources application) {
        // A copy takes every part of the application's but its event loops, unless given them: it would start its
        // own, which no one shuts down.
        return application.mutate().eventLoopGroupProvider(application.eventLoopGroupProvider())
                .tracing(Tracing.disabled()).commandLatencyRecorder(CommandLatencyRecorder.disabled())
                .commandLatencyPublisherOptions(DefaultEventPublisherOptions.disabled()).build();
    }

    /**
     * Whether Lettuce connects over a native transport (epoll, io_uring), the only ones with {@code TCP_USER_TIMEOUT}:
     * asked for on NIO, the option is not applied, and Lettuce warns so on every connect.
     */
    private static boolean nativeTransport() {
        return EpollProvider.isAvailable() || IOUringProvider.isAvailable();
    }

    private static ClientOptions clientOptions(@Nullable ClientOptions base, Duration timeout, boolean cluster) {
        SocketOptions.Builder socketOptions = SocketOptions.builder()
                .connectTimeout(timeout)
                .keepAlive(SocketOptions.KeepAliveOptions.builder().enable().idle(KEEP_ALIVE_IDLE)
                        .interval(Duration.ofSeconds(1)).count(3).build());
        if (nativeTransport()) {
            socketOptions.tcpUserTimeout(SocketOptions.TcpUserTimeoutOptions.builder().enable()
                    .tcpUserTimeout(USER_TIMEOUT).build());
        }
        SocketOptions socket = socketOptions.build();
        TimeoutOptions timeouts = TimeoutOptions.enabled(timeout);
        if (cluster) {
            ClusterClientOptions.Builder options = base instanceof ClusterClientOptions clusterBase
                    ? clusterBase.mutate() : base != null ? ClusterClientOptions.builder(base)
                    : ClusterClientOptions.builder();
            return options
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                    .requestQueueSize(QUEUE_SIZE)
                    .socketOptions(socket)
                    .timeoutOptions(timeouts)
                    .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder().enableAllAdaptiveRefreshTriggers()
                            .build())
                    .build();
        }
        ClientOptions.Builder options = base != null ? base.mutate() : ClientOptions.builder();
        return options
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .requestQueueSize(QUEUE_SIZE)
                .socketOptions(socket)
                .timeoutOptions(timeouts)
                .build();
    }
}
