package dev.onceonly.spring.boot;

import dev.onceonly.IdempotencyConfigurationException;
import dev.onceonly.IdempotencyDefaults;
import dev.onceonly.IdempotencyKeyFormat;
import dev.onceonly.IdempotencyMode;
import dev.onceonly.KeyStorage;
import dev.onceonly.crypto.EncryptionKeys;
import dev.onceonly.jdbc.JdbcIdempotencyStore;
import dev.onceonly.spring.web.PathEndpoint;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * Everything under {@code onceonly.*}. Every value is validated when the application starts; a bad value stops
 * it with a message that names the property. The engine's defaults and rules come from onceonly-core
 * ({@link IdempotencyDefaults}, the engine builder), so they never drift from the engine's own.
 *
 * <p>The parameter descriptions below become the IDE's property documentation, so they are plain text.
 *
 * @param enabled whether the starter configures anything at all
 * @param mode how idempotent work runs: auto (transactional when a TransactionRunner bean exists, which the
 *     JDBC store brings with a transaction manager; without one startup fails, as leased mode is only ever chosen
 *     by name), transactional or leased
 * @param key how keys look
 * @param lease leased mode
 * @param waitTimeout how long a duplicate waits for the first attempt to finish before it gets 409 (at most 10
 *     minutes)
 * @param retryAfter the Retry-After sent with 409 and 503
 * @param retention how long outcomes are kept
 * @param http the HTTP protocol
 * @param jdbc the JDBC store
 * @param cleanup the purge of expired records
 * @param replayCache finished outcomes also answered from memory once they were replayed
 * @param encryption encryption at rest of stored response bodies and headers
 * @param async the workers of asynchronous operations
 * @param metrics the metrics read from the record table
 * @param admin the administrators' Actuator endpoint
 * @param method idempotent service methods (IdempotentMethod)
 */
@ConfigurationProperties("onceonly")
public record OnceOnlyProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue("auto") IdempotencyMode mode,
        @DefaultValue Key key,
        @DefaultValue Lease lease,
        @DefaultValue(IdempotencyDefaults.WAIT_TIMEOUT) Duration waitTimeout,
        @DefaultValue(IdempotencyDefaults.RETRY_AFTER) Duration retryAfter,
        @DefaultValue Retention retention,
        @DefaultValue Http http,
        @DefaultValue Jdbc jdbc,
        @DefaultValue Cleanup cleanup,
        @DefaultValue ReplayCache replayCache,
        @DefaultValue Encryption encryption,
        @DefaultValue Async async,
        @DefaultValue Metrics metrics,
        @DefaultValue Admin admin,
        @DefaultValue Method method) {

    /**
     * @param headerName the request header that carries the key
     * @param minLength the shortest key accepted (default rule: letters, digits, '_' and '-')
     * @param maxLength the longest key accepted (default rule, at most 255)
     * @param pattern a regular expression keys must match instead of the default rule; it bounds the length
     *     itself, so it cannot be combined with another min-length or max-length
     * @param storage what is stored of each key: raw (the key as sent) or digest (only its SHA-256, or its
     *     HMAC-SHA256 with digest-secret, also in logs and error messages)
     * @param digestSecret the HMAC secret of digest storage, at least 32 bytes, the same on every instance;
     *     without it a plain SHA-256 is stored, which can be reversed for short or guessable keys
     */
    public record Key(
            @DefaultValue("Idempotency-Key") String headerName,
            @DefaultValue("" + IdempotencyDefaults.KEY_MIN_LENGTH) int minLength,
            @DefaultValue("" + IdempotencyDefaults.KEY_MAX_LENGTH) int maxLength,
            @Nullable String pattern,
            @DefaultValue("raw") Storage storage,
            @Nullable String digestSecret) {

        /** What is stored of each key. */
        public enum Storage {
            /** The key as the client sent it. */
            RAW,
            /** Only the key's digest. */
            DIGEST
        }

        public Key {
            if (headerName.isBlank()) {
                throw IdempotencyConfigurationException.of("onceonly.key.header-name", "must not be blank");
            }
            if (digestSecret != null && storage == Storage.RAW) {
                throw IdempotencyConfigurationException.of("onceonly.key.digest-secret",
                        "is set, but keys are stored raw, so it would be ignored",
                        "Set onceonly.key.storage=digest, or remove onceonly.key.digest-secret.");
            }
            if (pattern != null && (minLength != IdempotencyDefaults.KEY_MIN_LENGTH
                    || maxLength != IdempotencyDefaults.KEY_MAX_LENGTH)) {
                throw IdempotencyConfigurationException.of("onceonly.key.pattern",
                        "replaces the default rule, so onceonly.key.min-length/max-length would be ignored",
                        "Bound the length in the pattern (e.g. [A-Za-z0-9-]{8,64}) and remove min-length and "
                                + "max-length.");
            }
        }

        /** Without the digest secret, so that no log or diagnostic of the properties shows it. */
        @Override
        public String toString() {
            return "Key[headerName=" + headerName + ", minLength=" + minLength + ", maxLength=" + maxLength
                    + ", pattern=" + pattern + ", storage=" + storage + ", digestSecret="
                    + (digestSecret == null ? "none" : "(set)") + "]";
        }

        /** The key rule these properties describe, checked by onceonly-core's own rules. */
        public IdempotencyKeyFormat format() {
            try {
                return pattern != null ? IdempotencyKeyFormat.matching(pattern)
                        : IdempotencyKeyFormat.lengthBetween(minLength, maxLength);
            } catch (IdempotencyConfigurationException e) {
                throw e.renamed(pattern != null ? "onceonly.key.pattern" : "onceonly.key.min-length/max-length");
            }
        }

        /**
         * What these properties keep of each key: HMAC-SHA256 under the secret's UTF-8 bytes when a digest secret
         * is set.
         */
        public KeyStorage keyStorage() {
            if (storage == Storage.RAW) {
                return KeyStorage.raw();
            }
            if (digestSecret == null) {
                return KeyStorage.sha256();
            }
            try {
                return KeyStorage.hmacSha256(digestSecret.getBytes(StandardCharsets.UTF_8));
            } catch (IdempotencyConfigurationException e) {
                throw e.renamed("onceonly.key.digest-secret");
            }
        }
    }

    /**
     * @param duration how long a leased attempt owns its record before a retry may take it over (at most 1 day);
     *     a running attempt renews it every third of this, so it only runs out when the attempt's process died or
     *     stalled
     * @param maxAttempts attempts that may fail retryably before the record ends final (FAILED_FINAL with its last
     *     problem, replayed from then on)
     * @param backoff how long after its first failure a record may run again (0: at once); doubles with each
     *     failure
     * @param maxBackoff the longest backoff, at least backoff
     * @param heartbeatThreads threads that tick the heartbeats of running attempts (each renewal runs on a
     *     virtual thread of its own)
     * @param maxAttemptDuration how long an attempt's lease is renewed at most: work that runs longer (a handler
     *     that hangs) loses its lease, and another instance may take the record over
     */
    public record Lease(
            @DefaultValue(IdempotencyDefaults.LEASE_DURATION) Duration duration,
            @DefaultValue("" + IdempotencyDefaults.MAX_ATTEMPTS) int maxAttempts,
            @DefaultValue("0s") Duration backoff,
            @DefaultValue("5m") Duration maxBackoff,
            @DefaultValue("2") int heartbeatThreads,
            @DefaultValue(IdempotencyDefaults.MAX_ATTEMPT_DURATION) Duration maxAttemptDuration) {

        public Lease {
            if (heartbeatThreads < 1) {
                throw IdempotencyConfigurationException.of("onceonly.lease.heartbeat-threads", "must be at least 1, "
                        + "but is " + heartbeatThreads);
            }
        }
    }

    /**
     * @param enabled whether this instance runs the workers of asynchronous operations (it accepts them either
     *     way)
     * @param threads operations one instance runs at once
     * @param pollingInterval how often an instance looks for due tasks besides the look right after each
     *     submission
     * @param heartbeatInterval how often a running task reports that its instance is alive
     * @param missedHeartbeats heartbeats missed after which a task counts as dead and is run again elsewhere (at
     *     least 4)
     * @param shutdownWait how long shutdown waits for running operations; any still running are run again
     *     elsewhere once their instance counts as dead
     */
    public record Async(
            @DefaultValue("true") boolean enabled,
            @DefaultValue("4") int threads,
            @DefaultValue("5s") Duration pollingInterval,
            @DefaultValue("10s") Duration heartbeatInterval,
            @DefaultValue("6") int missedHeartbeats,
            @DefaultValue("20s") Duration shutdownWait) {

        public Async {
            if (threads < 1) {
                throw IdempotencyConfigurationException.of("onceonly.async.threads", "must be at least 1, but is "
                        + threads);
            }
            if (missedHeartbeats < 4) {
                throw IdempotencyConfigurationException.of("onceonly.async.missed-heartbeats", "must be at least 4, "
                        + "but is " + missedHeartbeats);
            }
            for (Duration positive : List.of(pollingInterval, heartbeatInterval, shutdownWait)) {
                if (positive.isNegative() || positive.isZero()) {
                    throw IdempotencyConfigurationException.of("onceonly.async.polling-interval/heartbeat-interval/"
                            + "shutdown-wait", "must be positive, but is " + positive);
                }
            }
        }
    }

    /**
     * @param succeeded how long a succeeded outcome is replayed
     * @param failed how long a failed outcome (final or retryable) is kept
     * @param abandoned how long a record whose attempt never ended (its process died, no retry came) is kept after
     *     its lease; unset: as long as succeeded
     * @param audit switches audit mode on (JDBC store): at expiry a record's stored response is dropped and its
     *     audit fields are kept this long in the audit table
     */
    public record Retention(
            @DefaultValue(IdempotencyDefaults.RETENTION) Duration succeeded,
            @DefaultValue(IdempotencyDefaults.RETENTION) Duration failed,
            @Nullable Duration abandoned,
            @Nullable Duration audit) {

        /** The engine's retention these properties describe, checked by onceonly-core's rules. */
        public dev.onceonly.Retention engineRetention() {
            try {
                return new dev.onceonly.Retention(succeeded, failed, abandoned);
            } catch (IdempotencyConfigurationException e) {
                throw e.renamed("onceonly." + e.setting());
            }
        }
    }

    /**
     * @param role the role a user needs for the onceonly Actuator endpoint (with Spring Security, the
     *     authority ROLE_ + role)
     */
    public record Admin(@DefaultValue("ONCEONLY_ADMIN") String role) {

        public Admin {
            if (role.isBlank() || role.startsWith("ROLE_")) {
                throw IdempotencyConfigurationException.of("onceonly.admin.role", "must be a role name without the "
                        + "ROLE_ prefix, such as ONCEONLY_ADMIN");
            }
        }
    }

    /**
     * @param recordCountsInterval how often the records by state, the oldest PROCESSING one and those past their
     *     expiry or lease are counted for the metrics: each count reads the whole record table, so keep it
     *     minutes apart; 0 turns the counts off
     */
    public record Metrics(@DefaultValue("5m") Duration recordCountsInterval) {

        public Metrics {
            requireNotNegative("onceonly.metrics.record-counts-interval", recordCountsInterval);
        }
    }

    /**
     * @param replayHeaders response headers stored and replayed besides the status and body, in addition to
     *     Content-Type, Content-Encoding, Content-Disposition, Content-Language, Vary, Location and ETag
     * @param maxRequestBody the largest request body an idempotent endpoint accepts (413 beyond)
     * @param maxResponseBody the largest response body stored; a larger outcome is stored without its body and
     *     replayed with Idempotent-Body-Omitted: true
     * @param keyReusedStatus the status for a key reused with another request: 422 (IETF draft) or 409
     * @param problemTypeBase the base URI of the problem types
     * @param redactedResponseFields JSON Pointers of response fields replaced by "[REDACTED]" before storing
     * @param endpoints endpoints that cannot carry the Idempotent annotation, matched by path pattern
     * @param allowAnonymous whether requests without an authenticated owner may use idempotent endpoints; they all
     *     share one owner, so anyone who learns a key could read its response
     * @param authenticationChallenge the WWW-Authenticate header of the 401 for a request without an owner, such
     *     as Bearer (OAuth 2 clients) or Basic realm="orders"
     * @param maxBufferedResponse the largest response an idempotent handler may write: it is held in memory until
     *     the outcome is settled, so a larger one fails the attempt with 500 (not sent, not stored); at least
     *     max-response-body
     */
    public record Http(
            @DefaultValue List<String> replayHeaders,
            @DefaultValue("1MB") DataSize maxRequestBody,
            @DefaultValue("1MB") DataSize maxResponseBody,
            @DefaultValue("422") int keyReusedStatus,
            @DefaultValue("https://onceonly.dev/problems/") URI problemTypeBase,
            @DefaultValue List<String> redactedResponseFields,
            @DefaultValue List<Endpoint> endpoints,
            @DefaultValue("false") boolean allowAnonymous,
            @DefaultValue("Bearer") String authenticationChallenge,
            @DefaultValue("8MB") DataSize maxBufferedResponse) {

        public Http {
            if (keyReusedStatus != 422 && keyReusedStatus != 409) {
                throw IdempotencyConfigurationException.of("onceonly.http.key-reused-status", "must be 422 or 409, "
                        + "not " + keyReusedStatus);
            }
            if (maxRequestBody.toBytes() < 1 || maxResponseBody.toBytes() < 1) {
                throw IdempotencyConfigurationException.of("onceonly.http.max-request-body/max-response-body",
                        "must be positive");
            }
            if (maxBufferedResponse.compareTo(maxResponseBody) < 0) {
                throw IdempotencyConfigurationException.of("onceonly.http.max-buffered-response", "must be at least "
                        + "onceonly.http.max-response-body (" + maxResponseBody + "), not " + maxBufferedResponse);
            }
            if (!authenticationChallenge.matches("\\p{Graph}\\p{Print}*")) {
                throw IdempotencyConfigurationException.of("onceonly.http.authentication-challenge", "must be a "
                        + "WWW-Authenticate challenge such as Bearer, not '" + authenticationChallenge + "'");
            }
            if (!problemTypeBase.isAbsolute() || !problemTypeBase.toString().endsWith("/")) {
                throw IdempotencyConfigurationException.of("onceonly.http.problem-type-base", "must be an absolute "
                        + "URI ending in '/', not " + problemTypeBase);
            }
        }

        /** The endpoints made idempotent by path, as onceonly-spring takes them. */
        public List<PathEndpoint> pathEndpoints() {
            return endpoints.stream().map(Endpoint::toPathEndpoint).toList();
        }
    }

    /**
     * An endpoint made idempotent by configuration.
     *
     * @param path a path pattern such as /api/legacy/payments/**
     * @param methods the HTTP methods it applies to
     * @param operation the operation name (default: method and pattern)
     * @param keyRequired whether a request without a key is refused (400) or passes through unprotected
     * @param fingerprintParameters query parameters that are part of the fingerprint, or * for all; others,
     *     such as a cache-buster, are not (form fields are the body and always are); default all, since the
     *     handler's use of parameters is not seen
     */
    public record Endpoint(
            String path,
            @DefaultValue({"POST", "PATCH"}) Set<String> methods,
            @Nullable String operation,
            @DefaultValue("true") boolean keyRequired,
            @DefaultValue List<String> fingerprintParameters) {

        /** Checked by onceonly-spring's rules for a {@link PathEndpoint}, named as properties. */
        public Endpoint {
            toPathEndpoint(path, methods, operation, keyRequired, fingerprintParameters);
        }

        /** This endpoint as onceonly-spring takes it. */
        public PathEndpoint toPathEndpoint() {
            return toPathEndpoint(path, methods, operation, keyRequired, fingerprintParameters);
        }

        private static PathEndpoint toPathEndpoint(String path, Set<String> methods, @Nullable String operation,
                boolean keyRequired, List<String> fingerprintParameters) {
            try {
                return new PathEndpoint(path, methods, operation, keyRequired, fingerprintParameters);
            } catch (IdempotencyConfigurationException e) {
                // As the property is spelled: fingerprintParameters is fingerprint-parameters
                throw e.renamed("onceonly.http.endpoints[]." + e.setting().replaceAll("([a-z])([A-Z])", "$1-$2")
                        .toLowerCase(Locale.ROOT));
            }
        }
    }

    /**
     * @param tableName the record table (plain identifier, optionally schema-qualified)
     * @param schemaInit whether the bundled migrations are applied at startup (with Flyway, history table
     *     onceonly_schema_history)
     * @param clockSync how often OnceOnly's clock is set to the database's time, on which every instance's leases
     *     and expiries then agree whatever the hosts' clocks say; 0s keeps the host's clock (or the application's
     *     Clock bean) unchanged, as a test that moves its clock needs
     */
    public record Jdbc(
            @DefaultValue(JdbcIdempotencyStore.DEFAULT_TABLE) String tableName,
            @DefaultValue("true") boolean schemaInit,
            @DefaultValue("1m") Duration clockSync) {

        public Jdbc {
            requireNotNegative("onceonly.jdbc.clock-sync", clockSync);
            if (schemaInit && !tableName.equals(JdbcIdempotencyStore.DEFAULT_TABLE)) {
                throw IdempotencyConfigurationException.of("onceonly.jdbc.schema-init", "the bundled migrations "
                        + "create " + JdbcIdempotencyStore.DEFAULT_TABLE + ", not " + tableName, "Create that "
                        + "table yourself and set onceonly.jdbc.schema-init=false");
            }
        }
    }

    /**
     * @param enabled whether expired records are purged in the background
     * @param interval the pause between purge runs
     * @param batchSize records deleted per statement
     * @param batchPause the pause between batches of one run, so that purging never starves live traffic
     */
    public record Cleanup(
            @DefaultValue("true") boolean enabled,
            @DefaultValue("1m") Duration interval,
            @DefaultValue("2000") int batchSize,
            @DefaultValue("10ms") Duration batchPause) {

        public Cleanup {
            requirePositive("onceonly.cleanup.interval", interval);
            requireNotNegative("onceonly.cleanup.batch-pause", batchPause);
            if (batchSize < 1 || batchSize > 100_000) {
                throw IdempotencyConfigurationException.of("onceonly.cleanup.batch-size", "must be 1 to 100000, not "
                        + batchSize);
            }
        }
    }

    /**
     * @param timeToLive how long a finished outcome is also answered from this process's memory once it was replayed
     *     (never past its record's expiry, at most 10 minutes); 0 turns it off
     * @param maxSize the body bytes it may hold, for the whole application
     */
    public record ReplayCache(
            @DefaultValue(IdempotencyDefaults.REPLAY_CACHE_TIME_TO_LIVE) Duration timeToLive,
            @DefaultValue("" + IdempotencyDefaults.REPLAY_CACHE_MAX_BYTES) DataSize maxSize) {
    }

    /**
     * Keys are never logged: {@link #toString()} shows their ids only.
     *
     * @param activeKeyId the id of the key new responses are encrypted with; setting it switches encryption on
     * @param keys every key stored responses can be read with, by id (letters, digits, '_' or '-'): the Base64 of
     *     32 random bytes, such as from openssl rand -base64 32; keep a retired key until every record written
     *     under it has expired
     * @param plaintextReadable whether responses stored before encryption was switched on are replayed; set it to
     *     false once the longest retention has passed since, so that a row written without a key is refused
     */
    public record Encryption(@Nullable String activeKeyId, @DefaultValue Map<String, String> keys,
            @DefaultValue("true") boolean plaintextReadable) {

        public Encryption {
            if (activeKeyId == null && !keys.isEmpty()) {
                throw IdempotencyConfigurationException.of("onceonly.encryption.active-key-id", "is missing, "
                        + "while keys " + keys.keySet() + " are set", "Set it to the id of the key to encrypt with");
            }
            keyRing(activeKeyId, keys, plaintextReadable);
        }

        /** The key ring these properties describe, or {@code null} if encryption is off. */
        public @Nullable EncryptionKeys keyRing() {
            return keyRing(activeKeyId, keys, plaintextReadable);
        }

        private static @Nullable EncryptionKeys keyRing(@Nullable String activeKeyId, Map<String, String> keys,
                boolean plaintextReadable) {
            if (activeKeyId == null) {
                return null;
            }
            Map<String, byte[]> decoded = new LinkedHashMap<>();
            keys.forEach((id, base64) -> decoded.put(id, decode(id, base64)));
            try {
                EncryptionKeys ring = EncryptionKeys.of(activeKeyId, decoded);
                return plaintextReadable ? ring : ring.refusingPlaintext();
            } catch (IdempotencyConfigurationException e) {
                throw e.renamed(e.setting().startsWith("keys") ? "onceonly.encryption." + e.setting()
                        : "onceonly.encryption.active-key-id");
            }
        }

        private static byte[] decode(String id, String base64) {
            try {
                return Base64.getDecoder().decode(base64.strip());
            } catch (IllegalArgumentException e) {
                // The decoder's message quotes a character of the key: not passed on.
                throw IdempotencyConfigurationException.of("onceonly.encryption.keys." + id, "is not Base64",
                        "Generate a key with `openssl rand -base64 32`");
            }
        }

        @Override
        public String toString() {
            return "Encryption[activeKeyId=" + activeKeyId + ", keys=" + keys.keySet() + ", plaintextReadable="
                    + plaintextReadable + "]";
        }
    }

    private static void requirePositive(String property, Duration value) {
        if (value.isNegative() || value.isZero()) {
            throw IdempotencyConfigurationException.of(property, "must be positive, not " + value);
        }
    }

    private static void requireNotNegative(String property, Duration value) {
        if (value.isNegative()) {
            throw IdempotencyConfigurationException.of(property, "must not be negative, not " + value);
        }
    }

    /**
     * @param allowAnonymous whether calls that declare no owner and run without an authenticated principal (a
     *     scheduler, a message listener) may run; they all share one owner, so any such call with the same key
     *     gets the same outcome. Off: they are refused, and each method declares its owner.
     */
    public record Method(@DefaultValue("false") boolean allowAnonymous) {
    }
}
