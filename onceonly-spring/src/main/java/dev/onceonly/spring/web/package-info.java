/**
 * The {@code Idempotency-Key} protocol for Spring MVC and WebFlux, as applications use it: {@link Idempotent}, owners,
 * what is stored of a response, problem details. The filters are in {@code .servlet} and {@code .reactive}.
 */
@NullMarked
package dev.onceonly.spring.web;

import org.jspecify.annotations.NullMarked;
