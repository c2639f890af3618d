package dev.onceonly.kafka.inbox;

/** Hears what each idempotent listener did with a record, for metrics. Must be thread-safe and quick. */
public interface InboxObserver {

    /** What a delivery came to. */
    enum Outcome {
        /** Ran the listener; its transaction then commits (or rolls back and the record comes again). */
        HANDLED,
        /** An earlier delivery was handled: nothing ran. */
        DUPLICATE,
        /** The listener threw, the key was unusable, or the first delivery was still in progress. */
        FAILED
    }

    void observed(String consumer, Outcome outcome);

    /** Hears nothing. */
    InboxObserver NONE = (consumer, outcome) -> { };
}
