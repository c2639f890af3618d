/**
 * Events of the payment provider: a signed webhook, deduplicated by event id through OnceOnly and guarded by the
 * order state machine, and the outbox its effects are announced through.
 */
@NullMarked
package dev.onceonly.example.payments;

import org.jspecify.annotations.NullMarked;
