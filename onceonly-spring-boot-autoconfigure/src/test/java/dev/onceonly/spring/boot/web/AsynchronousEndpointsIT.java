package dev.onceonly.spring.boot.web;

import static dev.onceonly.spring.boot.StartupFailure.assertStartupFailure;
import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.Attempt;
import dev.onceonly.StoredResponse;
import dev.onceonly.spring.async.AsynchronousOperation;
import dev.onceonly.spring.boot.OnceOnlyAutoConfiguration;
import dev.onceonly.spring.boot.async.OnceOnlyAsynchronousAutoConfiguration;
import dev.onceonly.spring.boot.jdbc.OnceOnlyJdbcAutoConfiguration;
import dev.onceonly.spring.web.AcceptedRequest;
import dev.onceonly.spring.web.IdempotencyOwnerResolver;
import dev.onceonly.spring.web.Idempotent;
import dev.onceonly.spring.web.servlet.IdempotentEndpoints;
import dev.onceonly.spring.web.servlet.OperationStatus;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Against the real PostgreSQL, with asynchronous operations set up: which asynchronous endpoints start. A
 * synchronous endpoint of the same operation shares the key's record, so both must make the same fingerprint.
 */
class AsynchronousEndpointsIT {

    private static final String URL = System.getProperty("onceonly.test.postgres.url",
            "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                    DataSourceTransactionManagerAutoConfiguration.class, OnceOnlyJdbcAutoConfiguration.class,
                    OnceOnlyAutoConfiguration.class, OnceOnlyAsynchronousAutoConfiguration.class,
                    WebMvcAutoConfiguration.class, OnceOnlyWebMvcAutoConfiguration.class))
            // Only accepting here: no worker of this context picks other tests' tasks from the shared table.
            .withPropertyValues("spring.datasource.url=" + URL, "onceonly.async.enabled=false")
            .withBean(IdempotencyOwnerResolver.class, () -> request -> "alice");

    @Test
    void synchronousAndAsynchronousHandlersOfOneOperationOnOneRouteStart() {
        runner.withBean(Settle.class).withUserConfiguration(Twins.class).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(OperationStatus.class);
            assertThat(context.getBean(IdempotentEndpoints.class).annotatedEngines()).hasSize(2);
        });
    }

    @Test
    void synchronousTwinOnAnotherRouteStopsStartup() {
        runner.withBean(Settle.class).withUserConfiguration(TwinsOnTwoRoutes.class)
                .run(context -> assertStartupFailure(context).hasMessageContaining("TwinsOnTwoRoutes.accept")
                        .hasMessageContaining("differ in HTTP methods, routes"));
    }

    @Test
    void asynchronousEndpointWithoutAnOperationOfItsNameStopsStartup() {
        runner.withUserConfiguration(Twins.class)
                .run(context -> assertStartupFailure(context).hasMessageContaining("Twins.accept")
                        .hasMessageContaining("no AsynchronousOperation bean is named 'settle'"));
    }

    static final class Settle implements AsynchronousOperation<String> {

        @Override
        public String name() {
            return "settle";
        }

        @Override
        public Class<String> payloadType() {
            return String.class;
        }

        @Override
        public StoredResponse run(Attempt attempt, String payload) {
            return StoredResponse.of(201, new byte[0]);
        }
    }

    @RestController
    static class Twins {
        @PostMapping("/settlements")
        @Idempotent("settle")
        ResponseEntity<String> settle() {
            return ResponseEntity.status(201).body("settled");
        }

        @PostMapping(path = "/settlements", headers = "Prefer=respond-async")
        @Idempotent(value = "settle", asynchronous = true)
        ResponseEntity<byte[]> accept(AcceptedRequest request) {
            return request.accept("payload", "/settlements/operations/{key}");
        }
    }

    @RestController
    static class TwinsOnTwoRoutes {
        @PostMapping("/settlements")
        @Idempotent("settle")
        ResponseEntity<String> settle() {
            return ResponseEntity.status(201).body("settled");
        }

        @PostMapping("/settlements/later")
        @Idempotent(value = "settle", asynchronous = true)
        ResponseEntity<byte[]> accept(AcceptedRequest request) {
            return request.accept("payload", "/settlements/operations/{key}");
        }
    }
}
