package dev.onceonly.spring.web;

import dev.onceonly.IdempotencyException;
import dev.onceonly.StoredResponse;
import dev.onceonly.spi.IdempotencyRecord;
import dev.onceonly.spring.web.internal.StoredResponses;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import tools.jackson.databind.json.JsonMapper;

/**
 * The answers of an asynchronous operation's endpoints, accepting and status alike: {@code 202} with where it
 * stands while it runs, its stored answer replayed once it has one, and the protocol's problems. An application
 * that serves a status resource of its own answers with these as {@code OperationStatus} does.
 */
public final class OperationResponses {

    /** The least a client is asked to wait before it looks again. */
    private static final Duration POLL_AFTER = Duration.ofSeconds(1);

    private final ProblemResponses problems;
    private final JsonMapper json;
    private final Clock clock;

    public OperationResponses(ProblemResponses problems, JsonMapper json, Clock clock) {
        this.problems = problems;
        this.json = json;
        this.clock = clock;
    }

    /** The clock records expire by. */
    public Clock clock() {
        return clock;
    }

    /**
     * {@code 202 Accepted} for an operation that has no answer yet: its state and attempt, the {@code Location} of
     * its status resource, and {@code Retry-After}: when its next attempt is due after a failure, else a second.
     *
     * @param respondAsync whether this answers a request's {@code Prefer: respond-async} (RFC 7240), which it
     *     then says it applied
     */
    public ResponseEntity<byte[]> running(IdempotencyRecord record, URI status, boolean respondAsync) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("state", record.state().name());
        body.put("attempt", record.attempt());
        Duration after = POLL_AFTER;
        if (record.nextAttemptAt() != null) {
            body.put("nextAttemptAt", record.nextAttemptAt().toString());
            Duration untilNext = Duration.between(clock.instant(), record.nextAttemptAt());
            after = untilNext.compareTo(after) > 0 ? untilNext : after;
        }
        ResponseEntity.BodyBuilder accepted = ResponseEntity.status(HttpStatus.ACCEPTED).location(status)
                .header(HttpHeaders.RETRY_AFTER, Long.toString((after.toMillis() + 999) / 1000))
                .header(HttpHeaders.CACHE_CONTROL, "no-store");
        if (respondAsync) {
            accepted.header("Preference-Applied", "respond-async");
        }
        return accepted.contentType(MediaType.APPLICATION_JSON).body(json.writeValueAsBytes(body));
    }

    /** The operation's stored answer, marked as replayed. */
    public static ResponseEntity<byte[]> replay(StoredResponse stored) {
        HttpHeaders headers = new HttpHeaders();
        StoredResponses.replayHeaders(stored, headers::set, headers::add);
        return ResponseEntity.status(stored.status()).headers(headers).body(stored.body());
    }

    /** A refusal as the {@code Idempotency-Key} filter answers it. */
    public ResponseEntity<byte[]> problem(IdempotencyException problem, String instance) {
        return entity(problems.render(problem, instance));
    }

    /** 404 for a key this owner never submitted, one that expired, or another owner's. */
    public ResponseEntity<byte[]> notFound(String instance) {
        return entity(problems.render("operation-not-found", "No operation was accepted under this "
                + "Idempotency-Key", null, instance));
    }

    private static ResponseEntity<byte[]> entity(ProblemResponses.Rendered rendered) {
        HttpHeaders headers = new HttpHeaders();
        rendered.headers().forEach(headers::set);
        return ResponseEntity.status(rendered.status()).headers(headers).body(rendered.body());
    }
}
