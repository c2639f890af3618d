/**
 * A simulated payment provider: a foreign system, run as its own process, that honours {@code Idempotency-Key} the
 * way real providers do, with faults and webhooks switchable at runtime to show a client charging exactly once.
 */
@NullMarked
package dev.onceonly.provider;

import org.jspecify.annotations.NullMarked;
