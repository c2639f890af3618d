package dev.onceonly.example.checkout;

import org.jspecify.annotations.Nullable;

/**
 * The answer to {@code GET /api/checkout/token}.
 *
 * @param formToken the one-time token to submit the form with; {@code null} while Redis is unavailable (the
 *     Idempotency-Key alone then guards the submission)
 * @param expiresInSeconds how long the token may be submitted
 */
public record CheckoutToken(@Nullable String formToken, long expiresInSeconds) {
}
