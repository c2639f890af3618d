package dev.onceonly.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyKeyFormat;
import dev.onceonly.memory.InMemoryIdempotencyStore;
import dev.onceonly.spi.IdempotencyStore;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class OnceOnlyAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(OnceOnlyAutoConfiguration.class,
                    OnceOnlyCleanupAutoConfiguration.class))
            .withBean(IdempotencyStore.class, InMemoryIdempotencyStore::new);

    @Test
    void engineRunsOnTheStoreBeanThatExists() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(IdempotencyEngine.class).hasSingleBean(ExpiredRecordCleaner.class);
            assertThat(context.getBean(IdempotencyEngine.class).isTransactional()).isFalse();
        });
    }

    @Test
    void backsOffForTheUsersEngineAndKeyFormat() {
        IdempotencyEngine own = IdempotencyEngine.builder(new InMemoryIdempotencyStore()).build();
        IdempotencyKeyFormat uuids = IdempotencyKeyFormat.matching("[0-9a-f-]{36}");

        runner.withBean(IdempotencyEngine.class, () -> own)
                .withBean(IdempotencyKeyFormat.class, () -> uuids)
                .run(context -> {
                    assertThat(context.getBean(IdempotencyEngine.class)).isSameAs(own);
                    assertThat(context.getBean(IdempotencyKeyFormat.class)).isSameAs(uuids);
                });
    }

    @Test
    void keyFormatFollowsTheProperties() {
        runner.withPropertyValues("onceonly.key.min-length=8", "onceonly.key.max-length=10").run(context -> {
            IdempotencyKeyFormat format = context.getBean(IdempotencyKeyFormat.class);
            assertThat(format.parse("12345678").value()).isEqualTo("12345678");
        });
    }

    @Test
    void withoutAnyStoreStartupFailsSayingWhatToAdd() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(OnceOnlyAutoConfiguration.class))
                .run(context -> assertThat(context).hasFailed().getFailure().extracting(NestedExceptionUtils::getMostSpecificCause).asInstanceOf(InstanceOfAssertFactories.THROWABLE)
                        .hasMessageContaining("IdempotencyStore").hasMessageContaining("DataSource"));
    }

    @Test
    void canBeSwitchedOff() {
        runner.withPropertyValues("onceonly.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(IdempotencyEngine.class)
                        .doesNotHaveBean(ExpiredRecordCleaner.class));
    }

    @Test
    void cleanupCanBeSwitchedOff() {
        runner.withPropertyValues("onceonly.cleanup.enabled=false")
                .run(context -> assertThat(context).hasSingleBean(IdempotencyEngine.class)
                        .doesNotHaveBean(ExpiredRecordCleaner.class));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "onceonly.wait-timeout=-1s | onceonly.wait-timeout",
        "onceonly.retry-after=0s | onceonly.retry-after",
        "onceonly.lease.duration=0s | onceonly.lease.duration",
        "onceonly.retention.succeeded=-5m | onceonly.retention.succeeded",
        "onceonly.key.max-length=300 | onceonly.key.min-length/max-length",
        "onceonly.key.header-name= | onceonly.key.header-name",
        "onceonly.http.key-reused-status=418 | onceonly.http.key-reused-status",
        "onceonly.http.problem-type-base=relative/ | onceonly.http.problem-type-base",
        "onceonly.cleanup.batch-size=0 | onceonly.cleanup.batch-size",
        "onceonly.http.endpoints[0].path=no-slash | onceonly.http.endpoints[].path",
        "onceonly.http.endpoints[0].path=/x;onceonly.http.endpoints[0].methods=P0ST | onceonly.http.endpoints[].methods",
        "onceonly.key.pattern=[unclosed | key pattern"
    })
    void badPropertyStopsStartupNamingTheProperty(String properties, String named) {
        runner.withPropertyValues(properties.split(";"))
                .run(context -> assertThat(context).hasFailed().getFailure().extracting(NestedExceptionUtils::getMostSpecificCause).asInstanceOf(InstanceOfAssertFactories.THROWABLE).hasMessageContaining(named));
    }
}
