package dev.onceonly.provider;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.provider.faults.Failure;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

class ProviderPropertiesTest {

    @Configuration(proxyBeanMethods = false)
    @EnableConfigurationProperties(ProviderProperties.class)
    static class PropertiesOnly {
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withUserConfiguration(PropertiesOnly.class);

    @Test
    void latencyAndFailuresBindFromStartupProperties() {
        runner.withPropertyValues("provider.latency=PT2S", "provider.failures=timeout,drop-after-commit,decline")
                .run(context -> {
                    ProviderProperties properties = context.getBean(ProviderProperties.class);
                    assertThat(properties.latency()).isEqualTo(Duration.ofSeconds(2));
                    assertThat(properties.failures())
                            .containsExactly(Failure.TIMEOUT, Failure.DROP_AFTER_COMMIT, Failure.DECLINE);
                    assertThat(properties.webhookDeliveries()).isEqualTo(2);
                });
    }

    @Test
    void webhookUrlWithoutSecretFailsStartup() {
        runner.withPropertyValues("provider.webhook-url=http://localhost:8080/webhooks")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("provider.webhook-secret"));
    }

    @Test
    void unknownFailureFailsStartup() {
        runner.withPropertyValues("provider.failures=timeout,explode")
                .run(context -> assertThat(context).hasFailed());
    }

    @Test
    void zeroDeliveriesFailsStartup() {
        runner.withPropertyValues("provider.webhook-deliveries=0")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("provider.webhook-deliveries"));
    }

    @Test
    void secretIsNotPrinted() {
        runner.withPropertyValues("provider.webhook-url=http://localhost:8080/webhooks",
                "provider.webhook-secret=s3cr3t-value")
                .run(context -> assertThat(context.getBean(ProviderProperties.class).toString())
                        .doesNotContain("s3cr3t-value"));
    }
}
