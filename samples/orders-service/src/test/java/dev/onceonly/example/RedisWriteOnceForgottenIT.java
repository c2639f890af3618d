package dev.onceonly.example;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.redis.RedisServerProcess;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Write-once (onceonly.redis.write-once) when Redis forgot an outcome, on a Redis of the test's own that the test
 * empties: the record decides, and the answer is one response, never the bytes of two runs.
 */
@Timeout(120)
class RedisWriteOnceForgottenIT {

    private static final String ORDER = "{\"skuId\": 42, \"quantity\": 2}";
    private static final RedisServerProcess REDIS = RedisServerProcess.start();
    private static InProcessInstance instance;

    @BeforeAll
    static void start() {
        instance = InProcessInstance.start("write-once", Map.of(
                "spring.datasource.url", System.getProperty("onceonly.test.postgres.url",
                        "jdbc:postgresql://127.0.0.1:5432/test?user=postgres") + "&currentSchema=onceonly_example",
                "spring.flyway.schemas", "onceonly_example",
                "spring.data.redis.port", REDIS.port(),
                "onceonly.redis.write-once", true));
    }

    @AfterAll
    static void stop() {
        instance.close();
        REDIS.close();
    }

    // issue 39: the write-once insert met the expired record, the engine ran the handler again, and the filter wrote
    // the second run into the first run's buffer: two bodies, stored and replayed.
    @Test
    void keyReusedAfterItsRecordExpiredAndRedisForgotItAnswersWithOneResponse() throws Exception {
        String key = UUID.randomUUID().toString();
        DemoClient client = new DemoClient(instance.port());
        HttpResponse<byte[]> first = client.post("alice", "/api/orders", List.of(key), ORDER);
        instance.bean(JdbcClient.class).sql("UPDATE onceonly_record SET expires_at = now() - interval '1 second'"
                + " WHERE idem_key = ?").param(key).update();
        // Redis forgets: FLUSHALL, as a restart without persistence leaves it, but with the connection up.
        instance.bean(StringRedisTemplate.class).execute((RedisCallback<Void>) connection -> {
            connection.serverCommands().flushAll();
            return null;
        });

        HttpResponse<byte[]> reused = client.post("alice", "/api/orders", List.of(key), ORDER);
        HttpResponse<byte[]> replay = client.post("alice", "/api/orders", List.of(key), ORDER);

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(reused.statusCode()).isEqualTo(201);
        String body = new String(reused.body(), StandardCharsets.UTF_8);
        assertThat(body).startsWith("{").endsWith("}").containsOnlyOnce("\"orderId\"");
        assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(replay.body()).isEqualTo(reused.body());
    }
}
