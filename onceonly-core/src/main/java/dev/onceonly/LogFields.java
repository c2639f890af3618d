package dev.onceonly;

import org.jspecify.annotations.Nullable;
import org.slf4j.MDC;

/**
 * The MDC fields of OnceOnly's work, the same whatever runs it (an HTTP request, leased or asynchronous work, a
 * message consumer), so that one log query finds every line of one key: {@value #OPERATION}, {@value #KEY} (the key
 * as stored: its digest with digest-only keys), {@value #ATTEMPT} once an attempt runs, {@value #REPLAYED} once the
 * outcome is known, and {@value #RESOURCE_ID} where the caller knows one (HTTP: the last segment of
 * {@code Location}). The engine opens them for each call; a caller that opens them first (the HTTP filter, the
 * Kafka listener) keeps them, with what the engine added, until it closes them. The owner is never a field: it is
 * who the caller is.
 */
public final class LogFields {

    public static final String OPERATION = "onceonly.operation";
    public static final String KEY = "onceonly.key";
    public static final String ATTEMPT = "onceonly.attempt";
    public static final String REPLAYED = "onceonly.replayed";
    public static final String RESOURCE_ID = "onceonly.resourceId";

    private static final String[] ALL = {OPERATION, KEY, ATTEMPT, REPLAYED, RESOURCE_ID};

    private LogFields() {
    }

    /** {@link #open(String, IdempotencyKey)} for a scope whose key is as stored. */
    static Scope open(IdempotencyScope storedScope) {
        return open(storedScope.operation(), storedScope.key());
    }

    /**
     * Sets the fields of an operation and a key as stored until the returned scope is closed, which restores the
     * fields as they were. Within fields already open for the same operation and key it changes nothing, and
     * closing it leaves them to whoever opened them.
     */
    public static Scope open(String operation, IdempotencyKey storedKey) {
        String key = storedKey.value();
        if (operation.equals(MDC.get(OPERATION)) && key.equals(MDC.get(KEY))) {
            return Scope.NESTED;
        }
        String[] previous = new String[ALL.length];
        for (int i = 0; i < ALL.length; i++) {
            previous[i] = MDC.get(ALL[i]);
            MDC.remove(ALL[i]);
        }
        MDC.put(OPERATION, operation);
        MDC.put(KEY, key);
        return () -> {
            for (int i = 0; i < ALL.length; i++) {
                if (previous[i] == null) {
                    MDC.remove(ALL[i]);
                } else {
                    MDC.put(ALL[i], previous[i]);
                }
            }
        };
    }

    /** The attempt now running. */
    static void attempt(int attempt) {
        MDC.put(ATTEMPT, Integer.toString(attempt));
    }

    /** How the call ended: replayed or not, and the resource it created if the caller knows it. */
    public static void outcome(boolean replayed, @Nullable String resourceId) {
        MDC.put(REPLAYED, Boolean.toString(replayed));
        if (resourceId != null) {
            MDC.put(RESOURCE_ID, resourceId);
        }
    }

    /** Open fields; closing never throws. */
    @FunctionalInterface
    public interface Scope extends AutoCloseable {

        /** Fields someone else opened and will close. */
        Scope NESTED = () -> { };

        @Override
        void close();
    }
}
