package dev.onceonly.spring.web.reactive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.Attempt;
import dev.onceonly.spring.web.internal.IdempotentEndpoint;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.security.core.Authentication;
import org.springframework.validation.annotation.Validated;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.method.HandlerMethod;
import reactor.core.publisher.Mono;

/** Which query parameters a WebFlux handler binds, and so which take part in its fingerprint by default. */
class ReactiveIdempotentEndpointsTest {

    public record Form(String sku, int quantity) {
    }

    @SuppressWarnings("unused")
    static class Handlers {

        Mono<String> named(@RequestParam("currency") String currency, @PathVariable long id, int page,
                @RequestBody Form body, Authentication user, Attempt attempt) {
            return Mono.empty();
        }

        Mono<String> validatedModel(@Validated Form form) {
            return Mono.empty();
        }

        Mono<String> reactiveModel(Mono<Form> form) {
            return Mono.empty();
        }

        Mono<String> allParameters(@RequestParam Map<String, String> parameters) {
            return Mono.empty();
        }
    }

    @Test
    void namedAndSimpleParametersAreBoundByName() throws Exception {
        assertThat(bound("named", String.class, long.class, int.class, Form.class, Authentication.class,
                Attempt.class)).containsExactlyInAnyOrder("currency", "page");
    }

    @Test
    void aModelAttributeValidatedOrReactiveAndAParameterMapReadAnyParameter() throws Exception {
        assertThat(bound("validatedModel", Form.class)).containsExactly(IdempotentEndpoint.ALL_PARAMETERS);
        assertThat(bound("reactiveModel", Mono.class)).containsExactly(IdempotentEndpoint.ALL_PARAMETERS);
        assertThat(bound("allParameters", Map.class)).containsExactly(IdempotentEndpoint.ALL_PARAMETERS);
    }

    private static java.util.Set<String> bound(String method, Class<?>... parameters) throws Exception {
        return ReactiveIdempotentEndpoints.boundQueryParameters(new HandlerMethod(new Handlers(),
                Handlers.class.getDeclaredMethod(method, parameters)));
    }
}
