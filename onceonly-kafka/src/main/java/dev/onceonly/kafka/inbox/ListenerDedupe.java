package dev.onceonly.kafka.inbox;

import java.time.Duration;

/**
 * Where {@link IdempotentListener#redisTtl()} listeners keep their keys instead of the inbox: for effects outside the
 * database, which cannot share its transaction. The starter backs it with onceonly-redis's {@code ShortTtlDedupe}
 * when a Redis connection is configured. Must be thread-safe.
 */
public interface ListenerDedupe {

    /**
     * Runs {@code effect} unless {@code consumer} ran {@code key} within {@code ttl}.
     *
     * @return {@code true} if it ran now, {@code false} for a duplicate
     * @throws dev.onceonly.RequestInProgressException if another delivery of the key is running
     */
    boolean runOnce(String consumer, String key, Duration ttl, Runnable effect);
}
