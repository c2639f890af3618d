package dev.onceonly.provider.webhooks;

import java.util.concurrent.atomic.AtomicInteger;

/** An event in the log: its bytes, sent on every delivery, and how its deliveries went. Thread-safe. */
final class SentEvent {

    private final long sequence;
    private final WebhookEvent event;
    private final byte[] body;
    private final AtomicInteger deliveries = new AtomicInteger();
    private final AtomicInteger failedAttempts = new AtomicInteger();

    SentEvent(long sequence, WebhookEvent event, byte[] body) {
        this.sequence = sequence;
        this.event = event;
        this.body = body.clone();
    }

    long sequence() {
        return sequence;
    }

    WebhookEvent event() {
        return event;
    }

    byte[] body() {
        return body.clone();
    }

    void delivered() {
        deliveries.incrementAndGet();
    }

    void attemptFailed() {
        failedAttempts.incrementAndGet();
    }

    /** The JSON of {@code GET /admin/events}. */
    record View(String id, String type, String created, int deliveries, int failedAttempts, WebhookEvent.Data data) {
    }

    View view() {
        return new View(event.id(), event.type().wireName(), event.created().toString(), deliveries.get(),
                failedAttempts.get(), event.data());
    }
}
