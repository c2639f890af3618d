/** The black-box HTTP conformance suite for {@code Idempotency-Key} APIs, and the target it is pointed at. */
@NullMarked
package dev.onceonly.conformance;

import org.jspecify.annotations.NullMarked;
