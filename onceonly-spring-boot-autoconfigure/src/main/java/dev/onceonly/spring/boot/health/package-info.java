/** Spring Boot Actuator health of the idempotency store. */
@NullMarked
package dev.onceonly.spring.boot.health;

import org.jspecify.annotations.NullMarked;
