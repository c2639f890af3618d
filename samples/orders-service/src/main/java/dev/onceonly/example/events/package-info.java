/** Order events: published from the outbox by OnceOnly's relay, consumed once by an idempotent listener. */
@NullMarked
package dev.onceonly.example.events;

import org.jspecify.annotations.NullMarked;
