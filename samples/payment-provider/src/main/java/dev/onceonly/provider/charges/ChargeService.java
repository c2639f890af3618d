package dev.onceonly.provider.charges;

import dev.onceonly.provider.faults.Failure;
import dev.onceonly.provider.faults.FaultPlan;
import dev.onceonly.provider.faults.Holds;
import dev.onceonly.provider.web.ProblemType;
import java.time.Duration;
import java.util.Optional;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.json.ProblemDetailJacksonMixin;
import org.springframework.stereotype.Service;
import tools.jackson.databind.json.JsonMapper;

/**
 * Makes a charge at most once per {@code Idempotency-Key}, the way real providers do:
 * <ol>
 *   <li>Claim the key. A key with an answer for the same body replays it; one still running answers 409; one used
 *       for another body answers 422. Nothing else happens for those.</li>
 *   <li>Take the next injected failure. {@code retryable} forgets the key and answers 503: no charge.</li>
 *   <li>Record the charge (declined for {@code decline}) and announce it.</li>
 *   <li>Hold the answer for the latency (30 s for {@code timeout}); the key stays "in progress" meanwhile.</li>
 *   <li>Store the answer for the key, then answer it, or, for {@code drop-after-commit}, drop the connection.</li>
 * </ol>
 */
@Service
class ChargeService {

    static final Duration TIMEOUT_HOLD = Duration.ofSeconds(30);
    private static final int RETRY_AFTER_SECONDS = 1;

    private final KeyedResponses keys;
    private final ChargeLedger ledger;
    private final FaultPlan faults;
    private final Holds holds;
    private final ChargeEvents events;
    private final JsonMapper json;

    ChargeService(KeyedResponses keys, ChargeLedger ledger, FaultPlan faults, Holds holds, ChargeEvents events,
            JsonMapper json) {
        this.keys = keys;
        this.ledger = ledger;
        this.faults = faults;
        this.holds = holds;
        this.events = events;
        this.json = json.rebuild().addMixIn(ProblemDetail.class, ProblemDetailJacksonMixin.class).build();
    }

    /**
     * The answer to a charge request.
     *
     * @param dropConnection true when the connection must be closed instead of answered
     */
    record Answer(StoredResponse response, boolean replayed, boolean dropConnection) {
    }

    /** @throws dev.onceonly.provider.web.ProviderProblemException for 409, 422 and 503 (nothing stored) */
    Answer charge(IdempotencyKey key, ChargeRequest request) {
        switch (keys.claim(key, request)) {
            case KeyedResponses.Replay replay -> {
                return new Answer(replay.response(), true, false);
            }
            case KeyedResponses.InProgress inProgress -> throw ProblemType.REQUEST_IN_PROGRESS
                    .exception("a request with this Idempotency-Key is still being processed")
                    .retryAfterSeconds(RETRY_AFTER_SECONDS);
            case KeyedResponses.Reused reused -> throw ProblemType.IDEMPOTENCY_KEY_REUSED
                    .exception("this Idempotency-Key was used for a different request");
            case KeyedResponses.Claimed claimed -> {
                // Run below, outside the switch, so that any failure releases the key.
            }
        }
        boolean completed = false;
        try {
            Answer answer = run(key, request);
            completed = true;
            return answer;
        } finally {
            if (!completed) {
                keys.release(key);
            }
        }
    }

    private Answer run(IdempotencyKey key, ChargeRequest request) {
        Optional<Failure> failure = faults.takeNext();
        Duration latency = faults.current().latency();
        if (failure.equals(Optional.of(Failure.RETRYABLE))) {
            throw ProblemType.PROVIDER_UNAVAILABLE.exception("the provider is unavailable; retry later")
                    .retryAfterSeconds(RETRY_AFTER_SECONDS);
        }
        StoredResponse response = failure.equals(Optional.of(Failure.DECLINE))
                ? decline(key, request) : succeed(key, request);
        holds.hold(failure.equals(Optional.of(Failure.TIMEOUT)) ? TIMEOUT_HOLD : latency);
        keys.complete(key, request, response);
        return new Answer(response, false, failure.equals(Optional.of(Failure.DROP_AFTER_COMMIT)));
    }

    private StoredResponse succeed(IdempotencyKey key, ChargeRequest request) {
        Charge charge = ledger.record(key, request, ChargeStatus.SUCCEEDED);
        events.publish(ChargeEvents.Type.SUCCEEDED, charge);
        return new StoredResponse(HttpStatus.CREATED.value(), MediaType.APPLICATION_JSON,
                json.writeValueAsBytes(charge));
    }

    private StoredResponse decline(IdempotencyKey key, ChargeRequest request) {
        Charge charge = ledger.record(key, request, ChargeStatus.DECLINED);
        events.publish(ChargeEvents.Type.DECLINED, charge);
        ProblemDetail problem = ProblemType.CARD_DECLINED.problem("the card was declined");
        problem.setProperty("chargeId", charge.id());
        return new StoredResponse(ProblemType.CARD_DECLINED.status().value(), MediaType.APPLICATION_PROBLEM_JSON,
                json.writeValueAsBytes(problem));
    }
}
