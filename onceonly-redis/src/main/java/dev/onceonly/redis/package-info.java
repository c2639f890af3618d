/**
 * Redis for idempotent services: {@link dev.onceonly.redis.RedisOutcomeCache}, the outcome cache the instances
 * share in front of the store, with {@link dev.onceonly.redis.FailFastLettuce} client settings; one-time
 * {@link dev.onceonly.redis.FormTokens}; owner-token {@link dev.onceonly.redis.RedisLocks} with fencing tokens; and
 * {@link dev.onceonly.redis.ShortTtlDedupe} for effects outside the database.
 */
@NullMarked
package dev.onceonly.redis;

import org.jspecify.annotations.NullMarked;
