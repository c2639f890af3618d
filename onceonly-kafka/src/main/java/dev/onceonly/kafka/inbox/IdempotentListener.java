package dev.onceonly.kafka.inbox;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a {@code @KafkaListener} method idempotent: each message takes effect once per consumer, in one database
 * transaction with the method's writes (the listener container's transaction, the method's
 * {@code @Transactional}, or one begun for it). A redelivered message (a rebalance, a restart, a lost offset
 * commit, a producer's retry) runs nothing and is acknowledged; a message whose first delivery is still being
 * handled elsewhere is refused with {@link dev.onceonly.RequestInProgressException}, for the container to retry it.
 *
 * <p>The message key is the record's {@value dev.onceonly.kafka.outbox.OutboxRelay#EVENT_ID_HEADER} header (the
 * relay's event id), or what the {@link #key() extractor} returns; a record with neither is refused with
 * {@link MessageKeyException}, which the container's error handler sends to its recoverer (a dead-letter topic)
 * without retrying. Record listeners only: a batch listener calls {@link dev.onceonly.inbox.Inbox} per record.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface IdempotentListener {

    /**
     * The consumer's name, which scopes its keys: default the listener's consumer group. Two listeners that must
     * each apply a message once need two names; keep a name once it is in use, or old keys count as new.
     */
    String consumer() default "";

    /**
     * The name of a {@link MessageKeyExtractor} bean that gives the key (a business key that identifies one event,
     * such as {@code orderId:version}; see there); default: the event-id header.
     */
    String key() default "";

    /**
     * How long handled keys are kept, as an ISO-8601 duration ({@code P14D}); default
     * {@code onceonly.kafka.inbox-retention}. Longer than the broker may redeliver: its log retention, and the consumer
     * group's offset retention.
     */
    String retention() default "";

    /**
     * Dedupes in Redis for this long (an ISO-8601 duration such as {@code PT6H}) instead of the inbox, for effects
     * outside the database (an SMS, an e-mail), which cannot share its transaction; no transaction is begun. At least
     * once, not exactly once: a process that dies between the effect and marking it done runs it again on
     * redelivery, a duplicate after the TTL runs again, and with Redis unreachable nothing runs (see onceonly-redis's
     * {@code ShortTtlDedupe}). Needs a {@link ListenerDedupe} (the starter's, with Spring Data Redis).
     */
    String redisTtl() default "";
}
