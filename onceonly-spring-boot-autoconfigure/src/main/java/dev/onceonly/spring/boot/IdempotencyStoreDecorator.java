package dev.onceonly.spring.boot;

import dev.onceonly.spi.IdempotencyStore;

/**
 * Wraps the store the engine uses, such as with timing; the store bean itself stays as it is. Every bean of this
 * type is applied, in order.
 */
@FunctionalInterface
public interface IdempotencyStoreDecorator {

    IdempotencyStore decorate(IdempotencyStore store);
}
