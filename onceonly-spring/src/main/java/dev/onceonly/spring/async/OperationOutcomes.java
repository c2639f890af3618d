package dev.onceonly.spring.async;

import dev.onceonly.OutcomeCodec;
import dev.onceonly.StoredResponse;

/**
 * How a worker stores what an {@link AsynchronousOperation} returns. Where Spring MVC serves asynchronous endpoints,
 * by the rules of the {@code Idempotency-Key} filter ({@code onceonly.http.redacted-response-fields},
 * {@code onceonly.http.max-response-body}), since their requests replay it like any stored response; as returned
 * otherwise.
 */
@FunctionalInterface
public interface OperationOutcomes {

    /** Outcomes stored as the operation returns them. */
    OperationOutcomes AS_RETURNED = operation -> OutcomeCodec.identity();

    /** The codec of an operation's outcomes. */
    OutcomeCodec<StoredResponse> codec(String operation);
}
