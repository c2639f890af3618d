/** The Idempotency-Key protocol for Spring MVC and WebFlux: @Idempotent, the filters, problem details. */
@NullMarked
package dev.onceonly.spring.web;

import org.jspecify.annotations.NullMarked;
