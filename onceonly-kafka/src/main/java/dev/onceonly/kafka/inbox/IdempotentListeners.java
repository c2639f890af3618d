package dev.onceonly.kafka.inbox;

import dev.onceonly.IdempotencyConfigurationException;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.InvalidIdempotencyKeyException;
import dev.onceonly.LogFields;
import dev.onceonly.Retention;
import dev.onceonly.TransactionRunner;
import dev.onceonly.inbox.Delivery;
import dev.onceonly.inbox.Inbox;
import dev.onceonly.kafka.inbox.InboxObserver.Outcome;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.Advisor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.AbstractKafkaListenerContainerFactory;
import org.springframework.kafka.listener.CompositeRecordInterceptor;
import org.springframework.kafka.listener.RecordInterceptor;
import org.springframework.kafka.support.KafkaUtils;

/**
 * Runs {@link IdempotentListener} methods through each consumer's {@link Inbox}: the advice of the
 * {@linkplain #advisor advisor} that the starter registers. The store's transaction is joined if the container or a
 * {@code @Transactional} began one, and begun otherwise, so that the inbox record and the listener's writes always
 * commit together. Thread-safe.
 */
public final class IdempotentListeners implements MethodInterceptor {

    private final IdempotencyEngine engine;
    private final TransactionRunner transactions;
    private final BeanFactory beans;
    private final Duration defaultRetention;
    private final String eventIdHeader;
    private final InboxObserver observer;
    private final @Nullable ListenerDedupe dedupe;
    private final ConcurrentMap<Method, IdempotentListener> settings = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Inbox> inboxes = new ConcurrentHashMap<>();

    /**
     * @param engine the engine on the store
     * @param transactions the transactions the store joins (the JDBC store's {@code SpringTransactionRunner}): a
     *     listener joins one that is active and begins one otherwise, whatever the engine's own mode
     * @param beans where {@link IdempotentListener#key()} extractors are looked up
     * @param defaultRetention how long keys are kept where a listener does not say
     * @param eventIdHeader the header with the event id
     * @param dedupe where {@link IdempotentListener#redisTtl()} listeners dedupe; {@code null} if none may
     */
    public IdempotentListeners(IdempotencyEngine engine, TransactionRunner transactions,
            BeanFactory beans, Duration defaultRetention, String eventIdHeader, InboxObserver observer,
            @Nullable ListenerDedupe dedupe) {
        this.engine = Objects.requireNonNull(engine, "engine")
                .withTransactions(Objects.requireNonNull(transactions, "transactions"));
        this.transactions = transactions;
        this.beans = Objects.requireNonNull(beans, "beans");
        this.defaultRetention = Objects.requireNonNull(defaultRetention, "defaultRetention");
        this.eventIdHeader = Objects.requireNonNull(eventIdHeader, "eventIdHeader");
        this.observer = Objects.requireNonNull(observer, "observer");
        this.dedupe = dedupe;
    }

    /**
     * Applies {@code advice} (these listeners, or a lazy handle on them) to every {@link IdempotentListener}
     * method, for an auto-proxy creator.
     */
    public static Advisor advisor(MethodInterceptor advice) {
        return new DefaultPointcutAdvisor(new AnnotationMatchingPointcut(null, IdempotentListener.class, true),
                advice);
    }

    /**
     * Lets {@code factory}'s containers tell an {@link IdempotentListener} which record it handles. A record
     * interceptor the application set keeps running, before ours, so that the listener is keyed by the record it
     * gets (an interceptor may replace it). A container whose interceptor is replaced later (a container
     * customizer's) no longer tells: its idempotent listeners then refuse every record.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static void install(AbstractKafkaListenerContainerFactory<?, ?, ?> factory) {
        RecordInterceptor existing = factory.getRecordInterceptor();
        if (existing instanceof CurrentRecord) {
            return;
        }
        RecordInterceptor current = new CurrentRecord();
        ((AbstractKafkaListenerContainerFactory) factory).setRecordInterceptor(existing == null ? current
                : new CompositeRecordInterceptor(existing, current));
    }

    /**
     * Checks the settings of an {@link IdempotentListener} method, so that a mistake stops startup instead of failing
     * every record: its durations, its key extractor, its consumer name, a Redis dedupe without Redis, and batch
     * listeners, which it does not serve.
     *
     * @throws IdempotencyConfigurationException naming the method and what is wrong with it
     */
    public void check(Method method) {
        IdempotentListener listener = AnnotatedElementUtils.findMergedAnnotation(method, IdempotentListener.class);
        if (listener == null) {
            return;
        }
        String where = "@IdempotentListener on " + method.getDeclaringClass().getSimpleName() + "." + method.getName();
        try {
            if (listener.consumer().length() > IdempotencyScope.MAX_NAME_LENGTH) {
                throw IdempotencyConfigurationException.of("@IdempotentListener consumer", "is longer than "
                        + IdempotencyScope.MAX_NAME_LENGTH + " characters");
            }
            Duration retention = retentionOf(listener);
            new Retention(retention, retention); // refuses what no store keeps
            if (!listener.redisTtl().isBlank()) {
                durationOf("redisTtl", listener.redisTtl());
                if (dedupe == null) {
                    throw IdempotencyConfigurationException.of("@IdempotentListener redisTtl", "needs a Redis "
                            + "connection, and none is configured", "Add Spring Data Redis and onceonly-redis");
                }
            }
            if (!listener.key().isBlank() && !(beans.containsBean(listener.key())
                    && beans.isTypeMatch(listener.key(), MessageKeyExtractor.class))) {
                throw noExtractor(listener.key(), "");
            }
            KafkaListener kafka = AnnotatedElementUtils.findMergedAnnotation(method, KafkaListener.class);
            // A literal batch = "true" only: a placeholder, or batch mode set on the container factory, is not seen.
            if (kafka != null && "true".equalsIgnoreCase(kafka.batch())) {
                throw IdempotencyConfigurationException.of("@IdempotentListener", "does not serve batch "
                        + "listeners", "Call Inbox.receive for each record of the batch");
            }
        } catch (IdempotencyConfigurationException e) {
            throw e.renamed(where + ": " + e.setting());
        }
    }

    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        IdempotentListener listener = settingsOf(invocation);
        ConsumerRecord<?, ?> record = CurrentRecord.get();
        if (record == null) {
            throw IdempotencyConfigurationException.of("@IdempotentListener", "called without a record: only "
                    + "record listeners of a container factory the starter prepared are supported",
                    "Call it from a @KafkaListener record listener, or use an Inbox directly");
        }
        String consumer = consumerOf(listener);
        // The listener's own lines, and the container's after it, carry the key like the engine's do.
        try (LogFields.Scope fields = logFields(record, listener)) {
            return listener.redisTtl().isBlank() ? received(invocation, listener, record, consumer)
                    : deduplicated(invocation, listener, record, consumer);
        }
    }

    /** The fields of the record's key, as the engine stores it; none for a record without a usable key. */
    private LogFields.Scope logFields(ConsumerRecord<?, ?> record, IdempotentListener listener) {
        try {
            return LogFields.open(Inbox.OPERATION, engine.keyStorage().stored(new IdempotencyKey(
                    keyOf(record, listener))));
        } catch (RuntimeException unusable) {
            return LogFields.Scope.NESTED; // refused as the listener runs, with its own error
        }
    }

    private @Nullable Object received(MethodInvocation invocation, IdempotentListener listener,
            ConsumerRecord<?, ?> record, String consumer) throws Throwable {
        try {
            Delivery delivery;
            @Nullable Object[] returned = new Object[1];
            try {
                Supplier<Delivery> receive = () -> inboxOf(consumer, listener).receive(keyOf(record, listener),
                        attempt -> {
                            returned[0] = proceed(invocation);
                            return null;
                        });
                delivery = transactions.isTransactionActive() ? receive.get() : transactions.inTransaction(receive);
            } catch (ListenerThrew threw) {
                throw threw.getCause();
            }
            observer.observed(consumer, delivery.duplicate() ? Outcome.DUPLICATE : Outcome.HANDLED);
            return delivery.duplicate() ? null : returned[0];
        } catch (Throwable failed) {
            observer.observed(consumer, Outcome.FAILED);
            throw failed;
        }
    }

    private @Nullable Object deduplicated(MethodInvocation invocation, IdempotentListener listener,
            ConsumerRecord<?, ?> record, String consumer) throws Throwable {
        if (dedupe == null) {
            throw IdempotencyConfigurationException.of("@IdempotentListener redisTtl", "needs a Redis connection, "
                    + "and none is configured", "Add Spring Data Redis and onceonly-redis, or use the inbox");
        }
        Duration ttl = durationOf("redisTtl", listener.redisTtl());
        try {
            @Nullable Object[] returned = new Object[1];
            boolean ran;
            try {
                ran = dedupe.runOnce(consumer, keyOf(record, listener), ttl, () -> returned[0] = proceed(invocation));
            } catch (ListenerThrew threw) {
                throw threw.getCause();
            }
            observer.observed(consumer, ran ? Outcome.HANDLED : Outcome.DUPLICATE);
            return returned[0];
        } catch (Throwable failed) {
            observer.observed(consumer, Outcome.FAILED);
            throw failed;
        }
    }

    private static @Nullable Object proceed(MethodInvocation invocation) {
        try {
            return invocation.proceed();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable checked) {
            throw new ListenerThrew(checked);
        }
    }

    private IdempotentListener settingsOf(MethodInvocation invocation) {
        return settings.computeIfAbsent(invocation.getMethod(), method -> {
            Object target = invocation.getThis();
            Method specific = target == null ? method : AopUtils.getMostSpecificMethod(method, target.getClass());
            return Objects.requireNonNull(AnnotatedElementUtils.findMergedAnnotation(specific,
                    IdempotentListener.class), "the pointcut matched a method without @IdempotentListener");
        });
    }

    private static String consumerOf(IdempotentListener listener) {
        if (!listener.consumer().isBlank()) {
            return listener.consumer();
        }
        String group = KafkaUtils.getConsumerGroupId();
        if (group == null || group.isBlank()) {
            throw IdempotencyConfigurationException.of("@IdempotentListener consumer", "the listener has no "
                    + "consumer group to name its consumer by", "Set consumer on @IdempotentListener");
        }
        return group;
    }

    private Inbox inboxOf(String consumer, IdempotentListener listener) {
        Duration retention = retentionOf(listener);
        return inboxes.computeIfAbsent(consumer + '\n' + retention, name -> Inbox.of(engine, consumer, retention));
    }

    private Duration retentionOf(IdempotentListener listener) {
        return listener.retention().isBlank() ? defaultRetention : durationOf("retention", listener.retention());
    }

    private static Duration durationOf(String attribute, String value) {
        try {
            Duration duration = Duration.parse(value);
            if (!duration.isNegative() && !duration.isZero()) {
                return duration;
            }
        } catch (DateTimeParseException e) {
            // answered below
        }
        throw IdempotencyConfigurationException.of("@IdempotentListener " + attribute, "'" + value + "' is not a "
                + "positive ISO-8601 duration such as P14D");
    }

    private String keyOf(ConsumerRecord<?, ?> record, IdempotentListener listener) {
        String key;
        String source;
        if (listener.key().isBlank()) {
            Header header = record.headers().lastHeader(eventIdHeader);
            key = header == null || header.value() == null ? null
                    : new String(header.value(), StandardCharsets.UTF_8);
            source = "header " + eventIdHeader;
        } else {
            key = extractor(listener.key()).keyOf(record);
            source = "key extractor " + listener.key();
        }
        if (key == null) {
            throw new MessageKeyException("The record from " + record.topic() + "-" + record.partition() + "@"
                    + record.offset() + " has no message key (" + source + "); it is refused unhandled");
        }
        try {
            return new IdempotencyKey(key).value();
        } catch (InvalidIdempotencyKeyException e) {
            throw new MessageKeyException("The record from " + record.topic() + "-" + record.partition() + "@"
                    + record.offset() + " has an unusable message key (" + source + ": " + e.violation() + ")");
        }
    }

    private MessageKeyExtractor extractor(String name) {
        try {
            return beans.getBean(name, MessageKeyExtractor.class);
        } catch (BeansException e) {
            throw noExtractor(name, " (" + e.getClass().getSimpleName() + ")");
        }
    }

    private static IdempotencyConfigurationException noExtractor(String name, String why) {
        return IdempotencyConfigurationException.of("@IdempotentListener key", "no MessageKeyExtractor bean named '"
                + name + "'" + why);
    }

    /** Carries a listener's checked exception out of the transaction callback, which rolls back for it. */
    private static final class ListenerThrew extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ListenerThrew(Throwable cause) {
            super(null, cause, false, false);
        }
    }
}
