package dev.onceonly.spring.boot;

import dev.onceonly.IdempotencyEngineBuilder;

/**
 * Adjusts the auto-configured engine's builder after the {@code onceonly.*} properties were applied and before
 * it is built, e.g. to set an {@code OutcomePolicy}. Every bean of this type is applied, in order
 * ({@code @Order}, {@code Ordered}); a setting changed here also holds for the endpoints' variants of the engine.
 */
@FunctionalInterface
public interface IdempotencyEngineCustomizer {

    void customize(IdempotencyEngineBuilder builder);
}
