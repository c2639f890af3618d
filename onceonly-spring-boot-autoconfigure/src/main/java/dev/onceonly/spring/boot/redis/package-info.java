/** Auto-configuration of the Redis fast layer: the outcome cache in front of the store, its health and metrics. */
@NullMarked
package dev.onceonly.spring.boot.redis;

import org.jspecify.annotations.NullMarked;
