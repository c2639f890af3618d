package dev.onceonly.inbox;

import dev.onceonly.Attempt;
import org.jspecify.annotations.Nullable;

/**
 * A consumer's effect for one message, run by {@link Inbox#receive} in the caller's transaction.
 *
 * @param <X> what it may throw; the caller's transaction then rolls back and the message comes again
 */
@FunctionalInterface
public interface MessageHandler<X extends Exception> {

    /**
     * @param attempt the attempt; {@link Attempt#downstreamKey} names calls and events this message causes, the
     *     same on every redelivery
     * @return a small result that duplicates get back, or {@code null} for none
     */
    byte @Nullable [] handle(Attempt attempt) throws X;
}
