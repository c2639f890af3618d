/** The {@code Idempotency-Key} protocol on Spring WebFlux: the web filter, the held-back response, handler lookup. */
@NullMarked
package dev.onceonly.spring.web.reactive;

import org.jspecify.annotations.NullMarked;
