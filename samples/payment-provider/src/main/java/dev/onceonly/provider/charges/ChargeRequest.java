package dev.onceonly.provider.charges;

import dev.onceonly.provider.web.JsonBodies;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A valid charge request body. Two requests under one key are "the same" when these values are equal, so
 * whitespace or field order do not count as a different body.
 */
record ChargeRequest(long amount, String currency, String reference) {

    static final long MAX_AMOUNT = 10_000_000;
    static final int MAX_REFERENCE_LENGTH = 64;
    private static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");
    private static final Set<String> FIELDS = Set.of("amount", "currency", "reference");

    /**
     * Reads and validates {@code {"amount": 1..10000000, "currency": "EUR", "reference": "1..64 chars"}}.
     *
     * @throws dev.onceonly.provider.web.ProviderProblemException {@code invalid-request} naming what is wrong
     */
    static ChargeRequest parse(byte @Nullable [] body, JsonMapper json) {
        JsonNode node = JsonBodies.readObject(body, json, FIELDS);
        JsonNode amount = node.get("amount");
        if (amount == null || !amount.isIntegralNumber() || !amount.canConvertToLong()
                || amount.longValue() < 1 || amount.longValue() > MAX_AMOUNT) {
            throw JsonBodies.invalid("amount must be a whole number of minor units from 1 to " + MAX_AMOUNT);
        }
        JsonNode currency = node.get("currency");
        if (currency == null || !currency.isString() || !CURRENCY.matcher(currency.stringValue()).matches()) {
            throw JsonBodies.invalid("currency must be three upper-case letters, such as \"EUR\"");
        }
        JsonNode reference = node.get("reference");
        if (reference == null || !reference.isString() || reference.stringValue().isEmpty()
                || reference.stringValue().length() > MAX_REFERENCE_LENGTH) {
            throw JsonBodies.invalid("reference must be a string of 1 to " + MAX_REFERENCE_LENGTH + " characters");
        }
        return new ChargeRequest(amount.longValue(), currency.stringValue(), reference.stringValue());
    }
}
