/**
 * The {@code Idempotency-Key} protocol without a server API: what a request to an idempotent endpoint can meet, the
 * refusal and problem each is, and whose keys a request uses. The Spring MVC, WebFlux and method adapters only
 * read requests and write what is decided here.
 */
@NullMarked
package dev.onceonly.http;

import org.jspecify.annotations.NullMarked;
