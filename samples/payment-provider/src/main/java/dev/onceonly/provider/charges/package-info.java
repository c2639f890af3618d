/** Charges and refunds, made once per {@code Idempotency-Key}: the provider's API and its in-memory state. */
@NullMarked
package dev.onceonly.provider.charges;

import org.jspecify.annotations.NullMarked;
