package dev.onceonly.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IdempotencyMode;
import dev.onceonly.TransactionRunner;
import dev.onceonly.memory.InMemoryIdempotencyStore;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spring.OnceOnlySetup;
import dev.onceonly.spring.boot.method.OnceOnlyMethodAutoConfiguration;
import dev.onceonly.spring.boot.web.OnceOnlyWebMvcAutoConfiguration;
import dev.onceonly.spring.method.IdempotencyKeyParam;
import dev.onceonly.spring.method.IdempotentMethod;
import dev.onceonly.spring.web.IdempotencyOwnerResolver;
import dev.onceonly.spring.web.Idempotent;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * No choice is silent (issue 41): the mode of every endpoint and method, the store, Redis and encryption are said in
 * one line of the log at startup, once.
 */
@ExtendWith(OutputCaptureExtension.class)
class OnceOnlySetupTest {

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(WebMvcAutoConfiguration.class, OnceOnlyAutoConfiguration.class,
                    OnceOnlyWebMvcAutoConfiguration.class, OnceOnlyMethodAutoConfiguration.class))
            .withBean(IdempotencyStore.class, InMemoryIdempotencyStore::new)
            .withBean(TransactionRunner.class, PassThroughTransactionRunner::new)
            .withBean(IdempotencyOwnerResolver.class, () -> request -> "alice")
            .withBean(Imports.class)
            .withUserConfiguration(Orders.class)
            .withPropertyValues("onceonly.method.allow-anonymous=true",
                    "onceonly.http.endpoints[0].path=/api/legacy/**");

    @RestController
    static class Orders {

        @PostMapping("/api/orders")
        @Idempotent("create-order")
        String create() {
            return "created";
        }

        @PostMapping("/api/payments")
        @Idempotent(value = "pay-order", mode = IdempotencyMode.LEASED)
        String pay() {
            return "paid";
        }
    }

    public static class Imports {

        @IdempotentMethod("import-order")
        public String importOrder(@IdempotencyKeyParam String key) {
            return key;
        }

        @IdempotentMethod(value = "charge", mode = IdempotencyMode.LEASED)
        public String charge(@IdempotencyKeyParam String key) {
            return key;
        }
    }

    @Test
    void theStoreAndTheModeOfEveryEndpointAndMethodAreSaidInOneLineOnce(CapturedOutput output) {
        runner.run(context -> {
            assertThat(context).hasNotFailed();

            assertThat(Arrays.stream(output.getOut().split("\\R")).filter(line -> line.contains("OnceOnly: store")))
                    .singleElement().asString().endsWith("OnceOnly: store InMemoryIdempotencyStore, default mode "
                            + "transactional; HTTP endpoints: leased [pay-order], transactional [PATCH|POST "
                            + "/api/legacy/**, create-order]; methods: auto (joined in a caller's transaction, else "
                            + "transactional) [import-order], leased [charge]; Redis off; encryption off");
            assertThat(context.getBean(OnceOnlySetup.class).view()).containsEntry("defaultMode", "transactional")
                    .containsEntry("redis", "off");
        });
    }
}
