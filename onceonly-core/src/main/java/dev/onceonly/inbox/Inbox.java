package dev.onceonly.inbox;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyMode;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.IdempotentResult;
import dev.onceonly.InvalidIdempotencyKeyException;
import dev.onceonly.OperationPolicy;
import dev.onceonly.OutcomeCodec;
import dev.onceonly.Retention;
import dev.onceonly.StoredResponse;
import java.time.Duration;
import java.util.Objects;

/**
 * An idempotent consumer's inbox, for any broker: each message key takes effect once per consumer, in the
 * transaction of the consumer's effect. {@link #receive} joins the caller's transaction (the engine's
 * {@linkplain IdempotencyMode#JOINED joined mode}): the key is claimed there, the handler's writes follow, and "handled"
 * is stored; all of it commits together, or rolls back together for the message to come again. A duplicate
 * delivery commits nothing new and gets the first delivery's result.
 *
 * <p>A consumer's records are scoped by its name (the owner) and the operation {@value #OPERATION}; the key is the
 * producer's event id or a business key that identifies one event, not one kind of event ({@code orderId:version},
 * not {@code orderId:eventType} for an event an order can have twice). Keep them for longer than the broker may
 * redeliver (its retention, a consumer group's offset retention): a key purged earlier counts as new.
 *
 * <p>Immutable and thread-safe.
 */
public final class Inbox {

    /** The operation of every inbox record. */
    public static final String OPERATION = "inbox";

    private final IdempotencyEngine engine;
    private final String consumer;
    /** Messages are told apart by their key alone: a redelivery is the same message whatever it carries. */
    private final Fingerprint fingerprint;

    private Inbox(IdempotencyEngine engine, String consumer) {
        this.engine = engine;
        this.consumer = consumer;
        this.fingerprint = Fingerprint.builder().method("MESSAGE").route(consumer).build();
    }

    /**
     * The inbox of {@code consumer} on {@code engine}'s store, keeping keys as long as {@code retention}.
     *
     * @param engine an engine with a {@link dev.onceonly.TransactionRunner} (the JDBC store's); the inbox runs it in
     *     joined mode
     * @param consumer a stable name of the consumer, such as its consumer group and listener id; two consumers of
     *     one message each handle it once
     * @param retention how long a handled key is remembered
     * @throws IllegalArgumentException if {@code consumer} is blank or longer than 255 characters
     * @throws dev.onceonly.IdempotencyConfigurationException if the engine has no transaction runner
     */
    public static Inbox of(IdempotencyEngine engine, String consumer, Duration retention) {
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(retention, "retention");
        Objects.requireNonNull(consumer, "consumer");
        if (consumer.isBlank() || consumer.length() > IdempotencyScope.MAX_NAME_LENGTH) {
            throw new IllegalArgumentException("consumer must be 1 to " + IdempotencyScope.MAX_NAME_LENGTH
                    + " characters and not blank");
        }
        IdempotencyEngine joined = engine.forOperation(OperationPolicy.ENGINE_DEFAULTS.withMode(IdempotencyMode.JOINED)
                .withRetention(new Retention(retention, retention)));
        return new Inbox(joined, consumer);
    }

    /** The consumer's name. */
    public String consumer() {
        return consumer;
    }

    /**
     * Runs {@code handler} unless this consumer handled {@code messageKey} before, inside the caller's transaction.
     *
     * @return whether it ran now or was a duplicate, and the result the first delivery stored
     * @throws InvalidIdempotencyKeyException if the key is empty, longer than 255 characters or has a control
     *     character; nothing ran
     * @throws dev.onceonly.RequestInProgressException if another transaction holds the same key uncommitted for
     *     longer than the engine's wait: roll back and let the message come again (never skip it)
     * @throws dev.onceonly.IdempotencyConfigurationException if no transaction is active
     * @throws X whatever the handler throws; the caller's transaction must roll back
     */
    public <X extends Exception> Delivery receive(String messageKey, MessageHandler<X> handler) throws X {
        Objects.requireNonNull(messageKey, "messageKey");
        Objects.requireNonNull(handler, "handler");
        IdempotencyScope scope = IdempotencyScope.of(consumer, OPERATION, new IdempotencyKey(messageKey));
        IdempotentResult<StoredResponse> result = engine.execute(scope, fingerprint, OutcomeCodec.identity(),
                attempt -> {
                    byte[] value = handler.handle(attempt);
                    return StoredResponse.result(value == null ? new byte[0] : value);
                });
        return new Delivery(result.replayed(), result.value().body());
    }
}
