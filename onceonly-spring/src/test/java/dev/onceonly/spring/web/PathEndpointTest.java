package dev.onceonly.spring.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.IdempotencyConfigurationException;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** An endpoint configured by path is refused where it is made, naming what is wrong, not at its first request. */
class PathEndpointTest {

    @Test
    void eachWrongPartIsNamed() {
        assertRefused(() -> new PathEndpoint("payments", Set.of("POST"), null, true, List.of()), "path");
        assertRefused(() -> new PathEndpoint("/payments/{id", Set.of("POST"), null, true, List.of()), "path");
        assertRefused(() -> new PathEndpoint("/" + "p".repeat(250), Set.of("POST"), null, true, List.of()),
                "path"); // the default operation name, method and path, would not fit a store
        assertRefused(() -> new PathEndpoint("/payments", Set.of(), null, true, List.of()), "methods");
        assertRefused(() -> new PathEndpoint("/payments", Set.of("P0ST"), null, true, List.of()), "methods");
        assertRefused(() -> new PathEndpoint("/payments", Set.of("POST"), " ", true, List.of()), "operation");
        assertRefused(() -> new PathEndpoint("/payments", Set.of("POST"), "x".repeat(256), true, List.of()),
                "operation");
        assertRefused(() -> new PathEndpoint("/payments", Set.of("POST"), null, true, List.of("")),
                "fingerprintParameters");
    }

    @Test
    void aValidEndpointKeepsItsPartsUnmodifiable() {
        PathEndpoint endpoint = new PathEndpoint("/payments/**", Set.of("POST"), "pay", true, List.of("currency"));

        assertThatThrownBy(() -> endpoint.methods().add("PUT")).isInstanceOf(UnsupportedOperationException.class);
        assertThat(endpoint.fingerprintParameters()).containsExactly("currency");
    }

    private static void assertRefused(Runnable making, String part) {
        assertThatThrownBy(making::run).isInstanceOfSatisfying(IdempotencyConfigurationException.class,
                e -> assertThat(e.setting()).isEqualTo(part));
    }
}
