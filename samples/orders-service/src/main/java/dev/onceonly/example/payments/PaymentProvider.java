package dev.onceonly.example.payments;

import dev.onceonly.client.IdempotentCalls;
import dev.onceonly.example.payments.ChargeResult.Charged;
import dev.onceonly.example.payments.ChargeResult.Declined;
import dev.onceonly.example.payments.ChargeResult.Unavailable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestClientException;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The payment provider's charges API, {@code POST /charges}: the one place this service talks to the provider over
 * HTTP. Every charge carries the caller's key as {@code Idempotency-Key} (through onceonly-client, which retries
 * under it), so a repeated call (a retry, a takeover after a crash) is answered with the first call's outcome
 * instead of charging again. Thread-safe.
 */
public class PaymentProvider {

    private static final Logger log = LoggerFactory.getLogger(PaymentProvider.class);
    private static final Pattern CHARGE_ID = Pattern.compile("ch_[A-Za-z0-9_-]{1,61}");
    /** Far more than a charge or a problem the provider answers with; a larger body is not read to its end. */
    private static final int MAX_BODY = 16 * 1024;

    private final RestClient client;
    private final JsonMapper json;

    /** @param client a client whose base URL is the provider's, with connect and read timeouts */
    PaymentProvider(RestClient client, JsonMapper json) {
        this.client = client;
        this.json = json;
    }

    /**
     * Charges {@code amount} once per {@code key}. Never throws for what the provider or the network do: those are
     * {@link Unavailable}.
     *
     * @param key the charge's idempotency key, the same in every attempt to make this one charge
     * @param amount in minor units of {@code currency}
     * @param reference what the charge is for, such as {@code order-42}
     */
    public ChargeResult charge(String key, long amount, String currency, String reference) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("amount", amount);
        body.put("currency", currency);
        body.put("reference", reference);
        try {
            return client.post().uri("/charges")
                    .attributes(IdempotentCalls.key(key))
                    .contentType(MediaType.APPLICATION_JSON)
                    .body(json.writeValueAsBytes(body))
                    .exchange((request, response) -> {
                        int status = response.getStatusCode().value();
                        byte[] answer = bounded(response.getBody());
                        return switch (status) {
                            case 200, 201 -> charged(answer);
                            case 402 -> new Declined(new String(answer, StandardCharsets.UTF_8));
                            default -> unavailable("status " + status);
                        };
                    });
        } catch (RestClientException e) {
            // A timeout, a refused or dropped connection: the charge may have been made; the key finds it again.
            return unavailable(rootCause(e).getClass().getSimpleName());
        }
    }

    private ChargeResult charged(byte[] body) {
        try {
            JsonNode id = json.readTree(body).get("id");
            if (id != null && id.isString() && CHARGE_ID.matcher(id.stringValue()).matches()) {
                return new Charged(id.stringValue());
            }
        } catch (JacksonException malformed) {
            // Below: a success that names no charge is no answer to rely on.
        }
        return unavailable("a success without a well-formed charge id");
    }

    private static Unavailable unavailable(String reason) {
        log.info("Payment provider unavailable for a charge: {}", reason);
        return new Unavailable(reason);
    }

    private static byte[] bounded(InputStream body) throws IOException {
        try (body) {
            return body.readNBytes(MAX_BODY);
        }
    }

    private static Throwable rootCause(Throwable e) {
        Throwable cause = e;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        return cause;
    }
}
