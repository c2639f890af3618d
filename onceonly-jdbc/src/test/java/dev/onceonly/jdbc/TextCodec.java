package dev.onceonly.jdbc;

import dev.onceonly.OutcomeCodec;
import dev.onceonly.StoredResponse;
import java.nio.charset.StandardCharsets;

/** Stores a text result as a 201 with the text as its body. */
final class TextCodec implements OutcomeCodec<String> {

    @Override
    public StoredResponse encode(String value) {
        return StoredResponse.of(201, value.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String decode(StoredResponse stored) {
        return stored.bodyAsString();
    }
}
