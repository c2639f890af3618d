package dev.onceonly.kafka.outbox;

/**
 * A relay round failed: a send was refused or not acknowledged in time, or the database failed. The round's rows
 * stay unpublished and a later round sends them again. The message and cause name error types and SQLStates, never
 * a payload or a database's error text (which can quote row values).
 */
public final class OutboxRelayException extends RuntimeException {

    OutboxRelayException(String message, Throwable cause) {
        super(message, cause);
    }
}
