/**
 * The inbox of an idempotent message consumer, for any broker: {@link dev.onceonly.inbox.Inbox}.
 */
@NullMarked
package dev.onceonly.inbox;

import org.jspecify.annotations.NullMarked;
