package dev.onceonly.spring.boot.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyMode;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.KeyStorage;
import dev.onceonly.OutcomeCodec;
import dev.onceonly.StoredResponse;
import dev.onceonly.memory.InMemoryIdempotencyStore;
import dev.onceonly.spring.OnceOnlySetup;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/** The endpoint's own access rule and answers, whatever secures its path: issue 12. */
class OnceOnlyEndpointTest {

    private static final byte[] SECRET = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8);

    private final InMemoryIdempotencyStore store = new InMemoryIdempotencyStore();
    private final IdempotencyEngine engine = IdempotencyEngine.builder(store).keyStorage(KeyStorage.hmacSha256(SECRET))
            .build();
    private final OnceOnlySetup setup = new OnceOnlySetup("InMemoryIdempotencyStore", IdempotencyMode.LEASED, false);
    private final OnceOnlyEndpoint endpoint = new OnceOnlyEndpoint(engine.administration(), setup, "ONCEONLY_ADMIN",
            URI.create("https://onceonly.dev/problems/"));
    private final String key = UUID.randomUUID().toString();

    private static SecurityContext user(@Nullable String name, Set<String> roles) {
        return new SecurityContext() {
            @Override
            public @Nullable Principal getPrincipal() {
                return name == null ? null : () -> name;
            }

            @Override
            public boolean isUserInRole(String role) {
                return roles.contains(role);
            }
        };
    }

    private static final SecurityContext ANONYMOUS = user(null, Set.of());
    private static final SecurityContext ALICE = user("alice", Set.of("USER"));
    private static final SecurityContext ADMIN = user("ops", Set.of("USER", "ONCEONLY_ADMIN"));

    private void paid() {
        engine.execute(IdempotencyScope.of("acme alice", "pay", IdempotencyKey.of(key)), Fingerprint.builder().build(),
                OutcomeCodec.identity(), attempt -> StoredResponse.of(201, "{\"card\":\"4242\"}".getBytes(
                        StandardCharsets.UTF_8)));
    }

    @Test
    void withoutAUserEveryOperationIs401AndWithoutTheRole403AndNothingChanges() {
        paid();

        assertThat(endpoint.records(ANONYMOUS, "acme alice", "pay", key, null, null).getStatus()).isEqualTo(401);
        assertThat(endpoint.evict(ANONYMOUS, "acme alice", "pay", key, null, "x").getStatus()).isEqualTo(401);
        assertThat(endpoint.release(ANONYMOUS, "acme alice", "pay", key, null, "x").getStatus()).isEqualTo(401);
        assertThat(endpoint.records(ALICE, "acme alice", "pay", key, null, null).getStatus()).isEqualTo(403);
        assertThat(endpoint.evict(ALICE, "acme alice", "pay", key, null, "x").getStatus()).isEqualTo(403);
        assertThat(endpoint.release(ALICE, "acme alice", "pay", key, null, "x").getStatus()).isEqualTo(403);
        assertThat(engine.find(IdempotencyScope.of("acme alice", "pay", IdempotencyKey.of(key)))).isPresent();
        assertProblem(endpoint.records(ANONYMOUS, "acme alice", "pay", key, null, null), "authentication-required");
        assertProblem(endpoint.evict(ALICE, "acme alice", "pay", key, null, "x"), "administrator-role-required");
    }

    @Test
    void withoutParametersAnAdministratorSeesTheSetupAndHalfARecordsQueryIsRefused() {
        setup.operation(OnceOnlySetup.Kind.HTTP, "pay", "leased");

        WebEndpointResponse<Object> shown = endpoint.records(ADMIN, null, null, null, null, null);

        assertThat(shown.getStatus()).isEqualTo(200);
        assertThat(shown.getBody()).isInstanceOfSatisfying(Map.class, body -> assertThat(body.get("setup"))
                .isEqualTo(Map.of("store", "InMemoryIdempotencyStore", "defaultMode", "leased", "httpEndpoints",
                        Map.of("leased", List.of("pay")), "methods", Map.of(), "redis", "off", "encryption", "off")));
        assertThat(endpoint.records(ALICE, null, null, null, null, null).getStatus()).isEqualTo(403);
        assertProblem(endpoint.records(ADMIN, "acme alice", null, key, null, null), "invalid-admin-request");
    }

    private static void assertProblem(WebEndpointResponse<Object> response, String type) {
        assertThat(response.getContentType()).hasToString("application/problem+json");
        assertThat(response.getBody()).isInstanceOfSatisfying(Map.class, body -> assertThat(body)
                .containsEntry("type", "https://onceonly.dev/problems/" + type)
                .containsEntry("status", response.getStatus()));
    }

    @Test
    void anAdministratorSeesTheRecordWithoutItsBodyAndEvictsItByTheDigestTheListingShows() {
        paid();

        WebEndpointResponse<Object> found = endpoint.records(ADMIN, "acme alice", "pay", key, null, null);
        WebEndpointResponse<Object> listing = endpoint.records(ADMIN, "acme alice", "pay", null, null, 10);
        @SuppressWarnings("unchecked")
        List<RecordView> listed = (List<RecordView>) ((Map<String, Object>) listing.getBody()).get("records");
        String digest = listed.getFirst().key();
        WebEndpointResponse<Object> evicted = endpoint.evict(ADMIN, "acme alice", "pay", null, digest, "support");

        assertThat(found.getStatus()).isEqualTo(200);
        assertThat(found.getBody()).isInstanceOfSatisfying(RecordView.class, view -> {
            assertThat(view.state()).isEqualTo("SUCCEEDED");
            assertThat(view.bodyBytes()).isEqualTo(15);
            assertThat(view.toString()).doesNotContain("4242", key);
        });
        assertThat(digest).startsWith("hmac-sha256:");
        assertThat(evicted.getStatus()).isEqualTo(200);
        assertThat(engine.find(IdempotencyScope.of("acme alice", "pay", IdempotencyKey.of(key)))).isEmpty();
    }

    @Test
    void badInputIs400NotAnException() {
        assertThat(endpoint.records(ADMIN, "acme alice", "pay", key, "both", null).getStatus()).isEqualTo(400);
        assertThat(endpoint.records(ADMIN, "acme alice", "pay", null, null, 0).getStatus()).isEqualTo(400);
        assertThat(endpoint.records(ADMIN, " ", "pay", key, null, null).getStatus()).isEqualTo(400);
        assertThat(endpoint.evict(ADMIN, "acme alice", "pay", key, null, " ").getStatus()).isEqualTo(400);
        assertThat(endpoint.evict(ADMIN, "acme alice", "pay", "bad\nkey", null, "x").getStatus()).isEqualTo(400);
        assertThat(endpoint.release(ADMIN, "acme alice", "pay", key, null, "x").getStatus()).isEqualTo(404);
        assertProblem(endpoint.records(ADMIN, "acme alice", "pay", null, null, 0), "invalid-admin-request");
        assertProblem(endpoint.records(ADMIN, "acme alice", "pay", key, null, null), "record-not-found");
    }
}
