package dev.onceonly.provider.webhooks;

import dev.onceonly.provider.ProviderProperties;
import dev.onceonly.provider.charges.Charge;
import dev.onceonly.provider.charges.ChargeEvents;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * Sends an event for each charge outcome to {@code provider.webhook-url}, at least once by design: each event is
 * delivered {@code provider.webhook-deliveries} times, each delivery retried with doubling backoff on a non-2xx
 * answer or a connection error, up to {@code provider.webhook-attempts}. Deliveries run on the injected executor,
 * never on the thread that made the charge. Without a URL nothing is sent or logged. The log is in memory (a
 * {@link ConcurrentHashMap}): this is a simulator.
 */
final class Webhooks implements ChargeEvents {

    private static final Logger LOG = LoggerFactory.getLogger(Webhooks.class);
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

    private final @Nullable URI url;
    private final String secret;
    private final ProviderProperties properties;
    private final HttpClient http;
    private final Executor executor;
    private final Clock clock;
    private final JsonMapper json;
    private final ConcurrentHashMap<String, SentEvent> log = new ConcurrentHashMap<>();
    private final AtomicLong sequence = new AtomicLong();

    Webhooks(ProviderProperties properties, HttpClient http, Executor executor, Clock clock, JsonMapper json) {
        this.url = properties.webhookUrl();
        this.secret = properties.webhookSecret() == null ? "" : properties.webhookSecret();
        this.properties = properties;
        this.http = http;
        this.executor = executor;
        this.clock = clock;
        this.json = json;
    }

    @Override
    public void publish(Type type, Charge charge) {
        if (url == null) {
            return;
        }
        WebhookEvent event = new WebhookEvent("evt_" + UUID.randomUUID(), type, clock.instant(),
                WebhookEvent.Data.of(charge));
        SentEvent sent = new SentEvent(sequence.incrementAndGet(), event, json.writeValueAsBytes(event));
        log.put(event.id(), sent);
        executor.execute(() -> {
            for (int delivery = 0; delivery < properties.webhookDeliveries(); delivery++) {
                deliver(url, sent);
            }
        });
    }

    /** Sends one more delivery of a logged event; empty when no event has this id. */
    Optional<SentEvent.View> redeliver(String eventId) {
        SentEvent sent = log.get(eventId);
        if (sent == null || url == null) {
            return Optional.empty();
        }
        executor.execute(() -> deliver(url, sent));
        return Optional.of(sent.view());
    }

    /** Every event sent, oldest first. */
    List<SentEvent.View> sent() {
        return log.values().stream().sorted(Comparator.comparingLong(SentEvent::sequence)).map(SentEvent::view)
                .toList();
    }

    private void deliver(URI target, SentEvent sent) {
        Duration backoff = properties.webhookBackoff();
        for (int attempt = 1; attempt <= properties.webhookAttempts(); attempt++) {
            if (attempt(target, sent)) {
                sent.delivered();
                return;
            }
            sent.attemptFailed();
            if (attempt < properties.webhookAttempts() && !pause(backoff)) {
                return;
            }
            backoff = backoff.multipliedBy(2);
        }
        LOG.warn("Gave up a delivery of event {} to {} after {} attempts", sent.event().id(), target,
                properties.webhookAttempts());
    }

    private boolean attempt(URI target, SentEvent sent) {
        byte[] body = sent.body();
        HttpRequest request = HttpRequest.newBuilder(target)
                .timeout(REQUEST_TIMEOUT)
                .header("Content-Type", "application/json")
                .header(WebhookSignature.HEADER, WebhookSignature.header(secret, clock.instant(), body))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build();
        try {
            int status = http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
            return status >= 200 && status <= 299;
        } catch (IOException unreachable) {
            return false;
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** False when interrupted: the application is stopping. */
    private static boolean pause(Duration backoff) {
        try {
            Thread.sleep(backoff);
            return true;
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
