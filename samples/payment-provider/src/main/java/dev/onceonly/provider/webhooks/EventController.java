package dev.onceonly.provider.webhooks;

import dev.onceonly.provider.web.ProblemType;
import java.util.List;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The events sent, with how often each was delivered; {@code POST /admin/events/{id}/redeliver} sends one again,
 * to replay events out of order on demand (202: the delivery runs in the background).
 */
@RestController
@RequestMapping("/admin/events")
class EventController {

    private final Webhooks webhooks;

    EventController(Webhooks webhooks) {
        this.webhooks = webhooks;
    }

    @GetMapping
    List<SentEvent.View> sent() {
        return webhooks.sent();
    }

    @PostMapping("/{eventId}/redeliver")
    ResponseEntity<SentEvent.View> redeliver(@PathVariable String eventId) {
        return webhooks.redeliver(eventId)
                .map(view -> ResponseEntity.accepted().body(view))
                .orElseThrow(() -> ProblemType.EVENT_NOT_FOUND.exception("no event with this id was sent"));
    }
}
