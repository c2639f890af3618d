package dev.onceonly.provider.charges;

import dev.onceonly.provider.web.ProblemType;
import org.jspecify.annotations.Nullable;

/** The value of an {@code Idempotency-Key} header: 1 to 255 printable ASCII characters. */
record IdempotencyKey(String value) {

    static final String HEADER = "Idempotency-Key";
    static final int MAX_LENGTH = 255;

    /** @throws dev.onceonly.provider.web.ProviderProblemException {@code invalid-idempotency-key} */
    static IdempotencyKey parse(@Nullable String header) {
        if (header == null || header.isEmpty()) {
            throw ProblemType.INVALID_IDEMPOTENCY_KEY.exception("the Idempotency-Key header is required");
        }
        if (header.length() > MAX_LENGTH) {
            throw ProblemType.INVALID_IDEMPOTENCY_KEY.exception(
                    "the Idempotency-Key must be at most " + MAX_LENGTH + " characters");
        }
        for (int i = 0; i < header.length(); i++) {
            char c = header.charAt(i);
            if (c < 0x20 || c > 0x7e) {
                throw ProblemType.INVALID_IDEMPOTENCY_KEY.exception(
                        "the Idempotency-Key may hold only printable ASCII characters");
            }
        }
        return new IdempotencyKey(header);
    }
}
