package dev.onceonly.provider.charges;

import dev.onceonly.provider.web.ConnectionDrop;
import dev.onceonly.provider.web.ProblemType;
import jakarta.servlet.http.HttpServletRequest;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.json.JsonMapper;

/**
 * The charges API: {@code POST /charges} (requires {@code Idempotency-Key}), {@code GET /charges?key=} or
 * {@code ?reference=} (the effects made, in creation order), {@code POST /charges/{id}/refunds}.
 */
@RestController
@RequestMapping("/charges")
class ChargeController {

    private final ChargeService charges;
    private final ChargeLedger ledger;
    private final ChargeEvents events;
    private final JsonMapper json;

    ChargeController(ChargeService charges, ChargeLedger ledger, ChargeEvents events, JsonMapper json) {
        this.charges = charges;
        this.ledger = ledger;
        this.events = events;
        this.json = json;
    }

    /** {@code null} after a dropped connection: Spring MVC then writes nothing, which the drop relies on. */
    @PostMapping
    @Nullable ResponseEntity<byte[]> create(@RequestHeader(name = IdempotencyKey.HEADER, required = false) @Nullable String key,
            @RequestBody(required = false) byte @Nullable [] body, HttpServletRequest servletRequest) {
        IdempotencyKey idempotencyKey = IdempotencyKey.parse(key);
        ChargeService.Answer answer = charges.charge(idempotencyKey, ChargeRequest.parse(body, json));
        if (answer.dropConnection()) {
            ConnectionDrop.of(servletRequest).now();
            return null;
        }
        return answer.response().toResponse(answer.replayed());
    }

    @GetMapping
    List<Charge> list(@RequestParam(required = false) @Nullable String key,
            @RequestParam(required = false) @Nullable String reference) {
        if ((key == null) == (reference == null)) {
            throw ProblemType.INVALID_REQUEST.exception("exactly one of the parameters key and reference is required");
        }
        return key != null
                ? ledger.list(charge -> charge.key().equals(key))
                : ledger.list(charge -> charge.reference().equals(reference));
    }

    /** Idempotent without a key: refunding a refunded charge answers it again and announces nothing. */
    @PostMapping("/{chargeId}/refunds")
    Charge refund(@PathVariable String chargeId) {
        return switch (ledger.refund(chargeId)) {
            case ChargeLedger.Refunded refunded -> {
                if (refunded.first()) {
                    events.publish(ChargeEvents.Type.REFUNDED, refunded.charge());
                }
                yield refunded.charge();
            }
            case ChargeLedger.NotRefundable notRefundable -> throw ProblemType.CHARGE_NOT_REFUNDABLE
                    .exception("a declined charge cannot be refunded");
            case ChargeLedger.NotFound notFound -> throw ProblemType.CHARGE_NOT_FOUND
                    .exception("no charge has this id");
        };
    }
}
