package dev.onceonly.spring.web.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class StoredResponsesTest {

    @ParameterizedTest
    @CsvSource(nullValues = "none", value = {
        "/api/orders/42, 42",
        "/api/orders/42/, 42",
        "/api/orders/42//?x=1, 42",
        "/api/orders/42?x=/y#z, 42",
        "/api/orders/42#part, 42",
        "https://shop.example/api/orders/ord-7, ord-7",
        "ord-7, ord-7",
        "/, none",
        "?x=1, none",
        "'  ', none"})
    void resourceIdIsTheLastPathSegmentOfTheLocation(String location, String id) {
        assertThat(StoredResponses.resourceId(location)).isEqualTo(id);
    }
}
