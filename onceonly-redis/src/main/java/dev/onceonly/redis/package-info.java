/** Redis building blocks: {@link dev.onceonly.redis.ShortTtlDedupe} for effects outside the database. */
@NullMarked
package dev.onceonly.redis;

import org.jspecify.annotations.NullMarked;
