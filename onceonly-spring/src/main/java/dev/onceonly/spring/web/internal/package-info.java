/**
 * The {@code Idempotency-Key} protocol itself, the same for Spring MVC and WebFlux: the decision table, endpoints
 * and their fingerprints. OnceOnly's implementation, free to change in any release: no other module uses it.
 */
@NullMarked
package dev.onceonly.spring.web.internal;

import org.jspecify.annotations.NullMarked;
