/** The {@code Idempotency-Key} protocol on Spring MVC: the filter, the held-back response, the handler lookup. */
@NullMarked
package dev.onceonly.spring.web.servlet;

import org.jspecify.annotations.NullMarked;
