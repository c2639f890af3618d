package dev.onceonly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.memory.InMemoryIdempotencyStore;
import dev.onceonly.spi.IdempotencyRecord;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Core never logs or stores a request body or a secret, at any log level. */
class NoSecretsTest {

    private static final String SECRET = "4111111111111111";
    private static final byte[] BODY = ("{\"card\":\"" + SECRET + "\",\"password\":\"" + SECRET + "\"}")
            .getBytes(StandardCharsets.UTF_8);

    @RegisterExtension
    final CapturedLogs logs = new CapturedLogs();

    @Test
    void neitherLogsNorRecordsHoldTheRequestBody() {
        InMemoryIdempotencyStore store = new InMemoryIdempotencyStore();
        IdempotencyEngine engine = IdempotencyEngine.builder(store).build();
        IdempotencyScope scope = new IdempotencyScope("alice", "pay", IdempotencyKey.of(UUID.randomUUID().toString()));
        Fingerprint fingerprint = Fingerprint.builder().method("POST").route("/pay").jsonBody(BODY).build();
        Fingerprint other = Fingerprint.builder().method("POST").route("/pay").rawBody(BODY).build();
        OutcomeCodec<StoredResponse> codec = OutcomeCodec.identity();

        engine.execute(scope, fingerprint, codec, attempt -> StoredResponse.of(201, "{\"paid\":true}".getBytes(
                StandardCharsets.UTF_8)));
        engine.execute(scope, fingerprint, codec, attempt -> StoredResponse.of(201, new byte[0]));
        assertThatThrownBy(() -> engine.execute(scope, other, codec, attempt -> StoredResponse.of(201, new byte[0])))
                .isInstanceOf(IdempotencyKeyReusedException.class)
                .message().doesNotContain(SECRET);

        assertThat(logs.events()).isNotEmpty().allSatisfy(event -> {
            assertThat(event.getFormattedMessage()).doesNotContain(SECRET);
            assertThat(event.getThrowableProxy()).isNull();
        });
        IdempotencyRecord record = store.find(scope).orElseThrow();
        assertThat(record.toString()).doesNotContain(SECRET);
        assertThat(record.response().bodyAsString()).doesNotContain(SECRET);
        assertThat(new String(record.fingerprint().digest(), StandardCharsets.ISO_8859_1)).doesNotContain(SECRET);
    }

    @Test
    void malformedBodyErrorsDoNotQuoteTheBody() {
        byte[] broken = ("{\"card\": " + SECRET + "x}").getBytes(StandardCharsets.UTF_8);

        assertThatThrownBy(() -> Fingerprint.builder().jsonBody(broken))
                .isInstanceOf(MalformedRequestBodyException.class)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(SECRET))
                .hasNoCause();
    }
}
