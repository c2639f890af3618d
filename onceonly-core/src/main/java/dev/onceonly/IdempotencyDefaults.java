package dev.onceonly;

/**
 * The defaults of {@link IdempotencyEngineBuilder} and {@link IdempotencyKeyFormat#DEFAULT}, as compile-time
 * constants that annotations can use (such as Spring Boot's {@code @DefaultValue}): durations in ISO-8601, sizes
 * in bytes. Integrations take their defaults from here, so they never drift from the engine's.
 */
public final class IdempotencyDefaults {

    /**
     * The shortest key of the default rule: any, as Stripe's API; a key is scoped to its owner and operation, so a
     * short one risks only its own client's requests. Stricter rules are configuration.
     */
    public static final int KEY_MIN_LENGTH = 1;
    /** The longest key of the default rule: 255, as Stripe's API and the store's key column. */
    public static final int KEY_MAX_LENGTH = 255;
    /** How long a leased attempt owns its record before a retry may take it over: 30 seconds. */
    public static final String LEASE_DURATION = "PT30S";
    /** How long a leased attempt's lease is renewed at most, however long its work runs: 15 minutes. */
    public static final String MAX_ATTEMPT_DURATION = "PT15M";
    /** How long a duplicate waits for a running attempt before it is refused: 1 second. */
    public static final String WAIT_TIMEOUT = "PT1S";
    /** The retry hint a refused duplicate gets: 1 second. */
    public static final String RETRY_AFTER = "PT1S";
    /** How long succeeded and failed records are kept: 24 hours, as Stripe keeps keys. */
    public static final String RETENTION = "PT24H";
    /** How long finished outcomes are also answered from memory: 5 seconds. */
    public static final String REPLAY_CACHE_TIME_TO_LIVE = "PT5S";
    /** Attempts at a leased record that may fail retryably before it ends final: 10. */
    public static final int MAX_ATTEMPTS = 10;
    /** The body bytes the replay cache holds: 16 MiB. */
    public static final long REPLAY_CACHE_MAX_BYTES = 16L << 20;

    private IdempotencyDefaults() {
    }
}
