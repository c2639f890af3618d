package dev.onceonly.spring.web;

import dev.onceonly.IdempotencyMode;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a Spring MVC handler method idempotent under the {@code Idempotency-Key} protocol: the first request
 * with a key runs, every retry with the same key and request gets the first response replayed, a key reused
 * with another request is refused.
 *
 * <pre>{@code
 * @PostMapping("/api/orders")
 * @Idempotent("create-order")
 * ResponseEntity<OrderView> create(@RequestBody CreateOrder request) { … }
 * }</pre>
 *
 * A mapping without methods applies to POST and PATCH only. Attribute values are checked when the application
 * starts; a bad one stops it, and so does a handler that answers asynchronously.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Idempotent {

    /** The operation name, part of every key's scope; default: the HTTP method and the route template. */
    String value() default "";

    /** Whether a request without a key is refused with 400; if not, it runs unprotected. */
    boolean keyRequired() default true;

    /** How long a duplicate waits for the first request, such as {@code "2s"}; default {@code onceonly.wait-timeout}. */
    String waitTimeout() default "";

    /** How long a success is replayed, such as {@code "7d"}; default {@code onceonly.retention.succeeded}. */
    String retention() default "";

    /**
     * How long a final failure (a 4xx that is replayed) is kept, such as {@code "1h"}; default
     * {@code onceonly.retention.failed}.
     */
    String failedRetention() default "";

    /**
     * How long a record whose attempt never ended (its process died, no retry came) is kept after its lease, such
     * as {@code "1h"}; default {@code onceonly.retention.abandoned}, or this endpoint's {@link #retention()} when
     * only that is set.
     */
    String abandonedRetention() default "";

    /**
     * How the handler runs. {@link IdempotencyMode#LEASED}: no transaction spans the handler, which may then call
     * other systems; pass the key on to them. {@link IdempotencyMode#TRANSACTIONAL}: the claim, the handler's
     * writes and the stored response commit together (needs a {@code TransactionRunner}). Default
     * {@link IdempotencyMode#AUTO}: the application's {@code onceonly.mode}.
     */
    IdempotencyMode mode() default IdempotencyMode.AUTO;

    /**
     * Statuses whose responses are not stored, so that the key may be retried (beyond 5xx, 401, 403, 407, 408, 425
     * and 429).
     */
    int[] retryableStatuses() default {};

    /** Statuses whose responses are stored and replayed although they would be retryable by default. */
    int[] finalStatuses() default {};

    /** Request headers that are part of the fingerprint, such as {@code X-Api-Version}. */
    String[] fingerprintHeaders() default {};

    /**
     * Query parameters that are part of the fingerprint, such as {@code currency}, or {@code "*"} for all of them.
     * Those the handler binds by name ({@code @RequestParam}, simple parameters) take part anyway. Left empty, all
     * of them do if the handler's reads cannot be seen: it takes a parameter map, a model attribute, the request
     * itself ({@code HttpServletRequest}, {@code WebRequest}, {@code RequestEntity}) or an argument of an
     * application's resolver; named, only these and the bound ones do. Others, such as a cache-buster, do not.
     * Form fields are the body and always take part.
     */
    String[] fingerprintParameters() default {};

    /** JSON Pointers of request body fields left out of the fingerprint, such as {@code /requestedAt}. */
    String[] excludedFields() default {};

    /**
     * Whether the handler accepts the request for a worker rather than running it: the asynchronous form of the
     * operation named by {@link #value()}, which an {@link dev.onceonly.spring.async.AsynchronousOperation}
     * bean of that name runs. The handler declares an {@link AcceptedRequest} parameter and answers with what its
     * {@code accept} returns: {@code 202 Accepted} while the operation runs, its stored answer once it has one.
     *
     * <p>The key's scope and fingerprint are the filter's, as for any idempotent endpoint, so a synchronous handler
     * of the same operation name on the same route (typically the mapping without {@code Prefer: respond-async})
     * shares the key's one record: a request first answered synchronously and retried asynchronously, or the other
     * way round, takes effect once and gets the first answer (RFC 7240: a preference asks for the answer's form,
     * not for another request). Needs a named operation and the asynchronous operations of onceonly-jdbc with
     * db-scheduler; checked at startup.
     */
    boolean asynchronous() default false;
}
