package dev.onceonly.kafka.inbox;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;
import org.springframework.kafka.listener.RecordInterceptor;

/**
 * Keeps the record a listener container is delivering on its consumer thread, so that an
 * {@link IdempotentListener} method needs no {@code ConsumerRecord} parameter: Spring Kafka hands listener methods
 * only what they declare. Installed on every listener container factory by {@link IdempotentListeners#install}.
 */
final class CurrentRecord implements RecordInterceptor<Object, Object> {

    private static final ThreadLocal<ConsumerRecord<?, ?>> RECORD = new ThreadLocal<>();

    static @Nullable ConsumerRecord<?, ?> get() {
        return RECORD.get();
    }

    @Override
    public ConsumerRecord<Object, Object> intercept(ConsumerRecord<Object, Object> record,
            Consumer<Object, Object> consumer) {
        RECORD.set(record);
        return record;
    }

    @Override
    public void afterRecord(ConsumerRecord<Object, Object> record, Consumer<Object, Object> consumer) {
        RECORD.remove();
    }

    @Override
    public void clearThreadState(Consumer<?, ?> consumer) {
        RECORD.remove();
    }
}
