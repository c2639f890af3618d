package dev.onceonly.spring.web.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.StoredResponse;
import dev.onceonly.spring.web.ResponseSnapshots;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonRedactionTest {

    // issue 12: redaction rewrote every number, escape and space of the body, not only the redacted fields
    @Test
    void onlyTheRedactedValuesChangeEveryOtherByteStays() {
        JsonRedaction redaction = new JsonRedaction(List.of("/card/number", "/cvc"));
        String body = "{ \"amount\": 1.50e3, \"exact\": 0.1000000000000000055511151231257827,\n"
                + "  \"card\": {\"number\": \"4111 1111\", \"name\": \"A\\u00e9\"}, \"cvc\": 123 }";

        String redacted = text(redaction.redact(bytes(body)));

        assertThat(redacted).isEqualTo("{ \"amount\": 1.50e3, \"exact\": 0.1000000000000000055511151231257827,\n"
                + "  \"card\": {\"number\": \"[REDACTED]\", \"name\": \"A\\u00e9\"}, \"cvc\": \"[REDACTED]\" }");
    }

    @Test
    void anObjectOrArrayValueIsRedactedWholeAndArrayElementsByIndex() {
        JsonRedaction redaction = new JsonRedaction(List.of("/secret", "/tokens/1"));

        String redacted = text(redaction.redact(bytes(
                "{\"secret\":{\"a\":[1,{\"b\":2}]},\"tokens\":[\"t0\",\"t1\",\"t2\"]}")));

        assertThat(redacted).isEqualTo("{\"secret\":\"[REDACTED]\",\"tokens\":[\"t0\",\"[REDACTED]\",\"t2\"]}");
    }

    @Test
    void everyOccurrenceOfADuplicatedMemberIsRedacted() {
        JsonRedaction redaction = new JsonRedaction(List.of("/secret"));

        String redacted = text(redaction.redact(bytes("{\"secret\":\"one\",\"secret\":\"two\"}")));

        assertThat(redacted).isEqualTo("{\"secret\":\"[REDACTED]\",\"secret\":\"[REDACTED]\"}");
    }

    @Test
    void aBodyWithoutTheFieldsIsReturnedAsItIsAndMalformedJsonIsNotRedactable() {
        JsonRedaction redaction = new JsonRedaction(List.of("/secret"));
        byte[] without = bytes("{\"public\": 1}");

        assertThat(redaction.redact(without)).isSameAs(without);
        assertThat(redaction.redact(bytes("{\"secret\": \"s3cret\""))).isNull();
    }

    // issue 12: a body labelled application/JSON escaped redaction
    @Test
    void bodyLabelledJsonInAnyLetterCaseIsRedactedBeforeItIsStored() {
        ResponseSnapshots snapshots = new ResponseSnapshots(List.of(), List.of("/secret"), 1 << 20);
        StoredResponse response = StoredResponse.of(200,
                Map.of("Content-Type", List.of("Application/JSON; charset=UTF-8")), bytes("{\"secret\":\"s3cret\"}"),
                null);

        StoredResponse stored = snapshots.codec("op").encode(response);

        assertThat(text(stored.body())).isEqualTo("{\"secret\":\"[REDACTED]\"}");
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
