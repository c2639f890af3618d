package dev.onceonly.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyKeyReusedException;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.IdempotencyStoreException;
import dev.onceonly.RequestInProgressException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** One catalogue of problems: each type's status, title and headers, whatever the transport. */
class ProblemCatalogueTest {

    private static final IdempotencyScope SCOPE = IdempotencyScope.of("alice", "create-order",
            IdempotencyKey.of("0c4b2a9e-5b8f-4f5e-9a51-3f4d2c1b0a99"));

    private final ProblemCatalogue catalogue = new ProblemCatalogue(URI.create("https://example.com/problems/"), 422,
            Duration.ofSeconds(2), "Basic realm=\"orders\"");

    @Test
    void aProblemsTypeIsTheBaseAndItsStableName() {
        ProblemCatalogue.Problem reused = catalogue.of(IdempotencyKeyReusedException.of(SCOPE));

        assertThat(reused.status()).isEqualTo(422);
        assertThat(reused.type()).isEqualTo(URI.create("https://example.com/problems/idempotency-key-reused"));
        assertThat(reused.title()).isEqualTo("Idempotency key reused with a different request");
        assertThat(reused.headers()).containsEntry("Content-Type", "application/problem+json")
                .containsEntry("Cache-Control", "no-store").doesNotContainKey("Retry-After");
    }

    @Test
    void whatARetryWaitsForIsSaidInRetryAfter() {
        assertThat(catalogue.of(RequestInProgressException.of(SCOPE, Duration.ofMillis(1500))).headers())
                .containsEntry("Retry-After", "2");
        assertThat(catalogue.of(new IdempotencyStoreException("down")).headers()).containsEntry("Retry-After", "2");
        assertThat(catalogue.of(ServerBusyException.of()).status()).isEqualTo(503);
    }

    @Test
    void a401ChallengesAndA415ForAnEncodingSaysWhichIsAccepted() {
        assertThat(catalogue.of(AuthenticationRequiredException.of()).headers())
                .containsEntry("WWW-Authenticate", "Basic realm=\"orders\"");
        assertThat(catalogue.of(UnsupportedRequestEncodingException.ofContentEncoding()).headers())
                .containsEntry("Accept-Encoding", "identity");
    }

    @Test
    void aReusedKeysStatusIsConfiguredAndNothingElseIs() {
        ProblemCatalogue conflict = new ProblemCatalogue(URI.create("https://example.com/p/"), 409, Duration.ZERO,
                "Bearer");

        assertThat(conflict.statusOf("idempotency-key-reused")).isEqualTo(409);
        assertThat(conflict.statusOf("a-type-of-the-application")).isEqualTo(400);
        assertThatThrownBy(() -> new ProblemCatalogue(URI.create("https://example.com/p"), 422, Duration.ZERO,
                "Bearer")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ending in '/'");
    }

    /** A problem's {@code type} URI resolves to its page on the documentation site, as Stripe's do. */
    @Test
    void everyTypeHasItsPageOnTheDocumentationSite() {
        Path pages = Path.of("..", "docs", "problems");

        assertThat(ProblemCatalogue.types()).isNotEmpty().allSatisfy(type -> assertThat(pages.resolve(type + ".md"))
                .as("the page of " + type).isRegularFile());
    }
}
