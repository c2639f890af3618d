package dev.onceonly.example.events;

/** An order event that no retry can make readable: sent to the dead-letter topic at once. */
class MalformedOrderEventException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    MalformedOrderEventException(String message) {
        super(message);
    }
}
