package dev.onceonly.example.payments;

import org.springframework.stereotype.Component;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads a webhook body into a {@link PaymentEvent}, strictly where strictness cannot cost a genuine event: one
 * JSON object and nothing after it, no member twice, no fractional amount cut to a whole one. Members it does not
 * know are ignored, as providers add them. Thread-safe.
 */
@Component
class PaymentEventReader {

    private final ObjectReader reader;

    PaymentEventReader(JsonMapper json) {
        this.reader = json.readerFor(PaymentEvent.class)
                .with(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .without(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
                .without(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    }

    /**
     * @throws MalformedPaymentEventException naming what is wrong, never quoting the body
     */
    PaymentEvent read(byte[] body) {
        try {
            PaymentEvent event = reader.readValue(body);
            if (event == null) {
                throw new MalformedPaymentEventException("the body is not a JSON object");
            }
            return event;
        } catch (JacksonException e) {
            throw new MalformedPaymentEventException(reason(e));
        }
    }

    /** The member a validation refused, else only that the JSON is malformed: Jackson's messages quote input. */
    private static String reason(JacksonException e) {
        for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
            if (cause instanceof IllegalArgumentException invalid && invalid.getMessage() != null
                    && invalid.getMessage().startsWith("member '")) {
                return invalid.getMessage();
            }
        }
        return "the body is not a well-formed payment event";
    }

    /** A body that is not a payment event; its message is safe to answer with. */
    static final class MalformedPaymentEventException extends RuntimeException {

        MalformedPaymentEventException(String message) {
            super(message, null, false, false);
        }
    }
}
