package dev.onceonly.example.payments;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;

/**
 * A payments bean that needs OnceOnly's engine (leased attempts, asynchronous operations, the webhook inbox): left
 * out when OnceOnly is switched off ({@code onceonly.enabled=false}), as the benchmark's baseline runs the service,
 * so that the orders API still starts. Payments never run without idempotency.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@ConditionalOnBooleanProperty(name = "onceonly.enabled", matchIfMissing = true)
@interface RunsWithOnceOnly {
}
