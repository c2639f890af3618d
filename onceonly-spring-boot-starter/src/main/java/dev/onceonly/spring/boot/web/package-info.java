/** The Idempotency-Key protocol for Spring MVC: @Idempotent, the filter, problem details. */
@NullMarked
package dev.onceonly.spring.boot.web;

import org.jspecify.annotations.NullMarked;
