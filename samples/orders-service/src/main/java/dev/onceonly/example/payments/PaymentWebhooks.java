package dev.onceonly.example.payments;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyMode;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.IdempotentResult;
import dev.onceonly.OperationPolicy;
import dev.onceonly.OutcomeCodec;
import dev.onceonly.StoredResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import tools.jackson.databind.json.JsonMapper;

/**
 * Receives each payment event once: OnceOnly's engine, in transactional mode whatever the service's default,
 * runs the {@link PaymentEventHandler} at most once per event id and gives every redelivery the first receipt.
 * The claim of the event id, the order's change, its history and outbox rows and the stored receipt commit in
 * one transaction, so a delivery that fails midway leaves nothing behind and the provider's next try runs anew.
 */
@RunsWithOnceOnly
@Component
class PaymentWebhooks {

    /** Every event has this owner: the provider, the one sender, authenticated by its signature. */
    static final String OWNER = "payment-provider";
    static final String OPERATION = "payment-webhook";
    static final String ROUTE = "/api/webhooks/payments";

    private final IdempotencyEngine engine;
    private final PaymentEventHandler handler;
    private final JsonMapper json;

    PaymentWebhooks(IdempotencyEngine engine, PaymentEventHandler handler, JsonMapper json) {
        // The handler's writes must commit with the claim; a service whose default is leased keeps this one apart.
        this.engine = engine.forOperation(OperationPolicy.ENGINE_DEFAULTS.withMode(IdempotencyMode.TRANSACTIONAL));
        this.handler = handler;
        this.json = json;
    }

    /**
     * @param event the event, read from {@code body}
     * @param body the raw body whose signature was checked: the fingerprint, so another body under a known event id
     *     is refused rather than answered with the first one's receipt
     * @return the receipt as stored (status 200, JSON), and whether it is a replay
     * @throws dev.onceonly.IdempotencyException for a reused event id, a delivery still in progress or an
     *     unreachable store
     */
    IdempotentResult<StoredResponse> receive(PaymentEvent event, byte[] body) {
        IdempotencyScope scope = IdempotencyScope.of(OWNER, OPERATION, IdempotencyKey.of(event.id()));
        Fingerprint fingerprint = Fingerprint.builder().method("POST").route(ROUTE).rawBody(body).build();
        return engine.execute(scope, fingerprint, OutcomeCodec.identity(),
                attempt -> stored(handler.apply(event, attempt)));
    }

    /** How long a delivery that could not be processed is told to wait. */
    Duration retryAfter() {
        return engine.retryAfter();
    }

    private StoredResponse stored(WebhookReceipt receipt) {
        return StoredResponse.of(200, Map.of(HttpHeaders.CONTENT_TYPE, List.of(MediaType.APPLICATION_JSON_VALUE)),
                json.writeValueAsBytes(receipt), null);
    }
}
