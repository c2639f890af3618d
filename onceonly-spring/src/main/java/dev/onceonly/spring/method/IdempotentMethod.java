package dev.onceonly.spring.method;

import dev.onceonly.IdempotencyMode;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a method of a Spring bean (a {@code @Service}, a listener's collaborator) take effect once per key: the
 * first call with a key runs, every later call with the same key and arguments returns the first call's result
 * without running, and a key reused with other arguments throws
 * {@link dev.onceonly.IdempotencyKeyReusedException}.
 *
 * <pre>{@code
 * @IdempotentMethod("create-order")
 * public OrderView create(@IdempotencyOwner String customer, @IdempotencyKeyParam String key, CreateOrder request) { … }
 * }</pre>
 *
 * <p>The key is the parameter annotated {@link IdempotencyKeyParam}, or the {@link #key()} expression; the owner is the
 * parameter annotated {@link IdempotencyOwner}, the {@link #owner()} expression, or else the authenticated
 * principal of Spring Security's context. The fingerprint is the canonical JSON of the other arguments by parameter
 * name, written with the application's JSON mapper; the result is stored with that mapper and read back as the
 * method's declared return type. A parameter of type {@link dev.onceonly.Attempt} receives the running attempt
 * (the caller passes {@code null}): pass its {@code downstreamKey} on to the systems the method calls.
 *
 * <p>The annotation works through a Spring proxy, like {@code @Transactional}: a call from the same object
 * ({@code this.create(…)}) bypasses it. Attribute values are checked when the application starts; a bad one
 * stops it, and so does an annotated method that a proxy cannot intercept (private, final, static) or that
 * answers asynchronously.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface IdempotentMethod {

    /** The operation name, part of every key's scope; default: the class's simple name, a dot, the method's name. */
    String value() default "";

    /**
     * A SpEL expression over the arguments that gives the key, such as {@code "#command.orderId"} or
     * {@code "#p0"}; instead of a parameter annotated {@link IdempotencyKeyParam}. A blank or missing key throws
     * {@link dev.onceonly.InvalidIdempotencyKeyException}.
     */
    String key() default "";

    /**
     * A SpEL expression over the arguments that gives the owner, such as {@code "#tenant.id"} or
     * {@code "'orders-consumer'"}; instead of a parameter annotated {@link IdempotencyOwner} or the authenticated
     * principal.
     */
    String owner() default "";

    /**
     * JSON Pointers into the arguments, by parameter name, left out of the fingerprint, such as
     * {@code /command/requestedAt}; {@code /clock} leaves out the whole parameter {@code clock}, which is then not
     * written as JSON at all.
     */
    String[] excludedFields() default {};

    /**
     * Exceptions that are the call's final outcome: stored, and thrown again (a copy read back with the JSON mapper)
     * by every later call with the key. Any other exception leaves the key free for a retry.
     */
    Class<? extends Throwable>[] finalExceptions() default {};

    /**
     * How long a call waits for an earlier call with the same key that still runs, such as {@code "2s"}, before it
     * throws {@link dev.onceonly.RequestInProgressException}; default {@code onceonly.wait-timeout}.
     */
    String waitTimeout() default "";

    /** How long a result is replayed, such as {@code "7d"}; default {@code onceonly.retention.succeeded}. */
    String retention() default "";

    /** How long a final exception is kept, such as {@code "1h"}; default {@code onceonly.retention.failed}. */
    String failedRetention() default "";

    /**
     * How long a record whose call never ended is kept after its lease, such as {@code "1h"}; default
     * {@code onceonly.retention.abandoned}.
     */
    String abandonedRetention() default "";

    /**
     * How the method runs. {@link IdempotencyMode#TRANSACTIONAL}: in a transaction OnceOnly begins, which the
     * method's own {@code @Transactional} joins, so the claim, its writes and the result commit together; it must
     * not be called inside a transaction. {@link IdempotencyMode#LEASED}: outside any transaction, for methods that
     * call other systems. {@link IdempotencyMode#JOINED}: inside the caller's transaction (a listener's, a
     * {@code @Transactional} caller's), whose commit decides. Default {@link IdempotencyMode#AUTO}: joined when the
     * caller has a transaction of the store's, else the application's {@code onceonly.mode}.
     */
    IdempotencyMode mode() default IdempotencyMode.AUTO;
}
