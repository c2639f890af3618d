package dev.onceonly;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class IdempotencyScopeTest {

    private static final IdempotencyKey KEY = IdempotencyKey.of("0123456789abcdef0123");

    @Test
    void idIsStableShortAndUrlSafe() {
        String id = IdempotencyScope.of("alice", "pay-order", KEY).id();

        assertThat(id).matches("[A-Za-z0-9_-]{43}").isEqualTo(IdempotencyScope.of("alice", "pay-order", KEY).id());
    }

    @Test
    void scopesThatConcatenateAlikeHaveDifferentIds() {
        assertThat(IdempotencyScope.of("ab", "c", KEY).id()).isNotEqualTo(IdempotencyScope.of("a", "bc", KEY).id());
        assertThat(IdempotencyScope.of("alice", "pay", KEY).id())
                .isNotEqualTo(IdempotencyScope.of("bob", "pay", KEY).id());
    }
}
