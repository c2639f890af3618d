package dev.onceonly.spring.web;

import org.springframework.http.ResponseEntity;

/**
 * A request to an {@linkplain Idempotent#asynchronous() asynchronous endpoint}, with its key, owner and
 * fingerprint as the {@code Idempotency-Key} filter made them: declared as a parameter of its handler, which says
 * what the worker needs and answers with {@link #accept}.
 *
 * <pre>{@code
 * @PostMapping(path = "/api/orders/{orderId}/payments", headers = "Prefer=respond-async")
 * @Idempotent(value = "pay-order", asynchronous = true)
 * ResponseEntity<byte[]> payLater(@PathVariable long orderId, AcceptedRequest request, Authentication user) {
 *     return request.accept(new PayOrder(orderId, user.getName()), "/api/payment-operations/{key}");
 * }
 * }</pre>
 */
public interface AcceptedRequest {

    /**
     * Accepts the operation unless its key has a record already, and answers as the protocol says. Call it outside
     * any transaction: the record and the worker's task commit together in one of their own.
     *
     * @param payload what the worker's {@link dev.onceonly.spring.async.AsynchronousOperation} is given,
     *     stored as JSON until the operation has finished
     * @param statusRoute the route of the operation's status resource within the application, with a {@code {key}}
     *     variable for the key as the client sent it, such as {@code /api/payment-operations/{key}}: the
     *     {@code Location} of a 202, after the context path
     * @return {@code 202 Accepted} with {@code Location}, {@code Retry-After} and {@code Preference-Applied:
     *     respond-async} while the operation runs (or a synchronous request of the same key does); the key's
     *     stored answer with {@code Idempotent-Replayed: true} once it has one; the filter's problems for a key
     *     reused with another request (422 or 409), a submission that has not committed yet (409) and an
     *     unreachable store (503), each with nothing accepted
     * @throws IllegalArgumentException if {@code statusRoute} has no {@code {key}}
     */
    ResponseEntity<byte[]> accept(Object payload, String statusRoute);
}
