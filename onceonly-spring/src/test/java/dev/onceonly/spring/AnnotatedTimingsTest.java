package dev.onceonly.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.IdempotencyConfigurationException;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.OperationPolicy;
import dev.onceonly.Retention;
import dev.onceonly.memory.InMemoryIdempotencyStore;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** An annotation's timings become an operation's policy; those it leaves blank stay the engine's. */
class AnnotatedTimingsTest {

    private final IdempotencyEngine engine = IdempotencyEngine.builder(new InMemoryIdempotencyStore())
            .retention(new Retention(Duration.ofDays(2), Duration.ofHours(3))).build();

    @Test
    void blankTimingsLeaveTheEngineAsItIs() {
        OperationPolicy policy = new AnnotatedTimings("", "", "", "")
                .applyTo(OperationPolicy.ENGINE_DEFAULTS, engine, "Orders.create");

        assertThat(policy).isEqualTo(OperationPolicy.ENGINE_DEFAULTS);
        assertThat(engine.forOperation(policy)).isSameAs(engine);
    }

    @Test
    void aPartlySetRetentionIsCompletedByTheEngines() {
        OperationPolicy policy = new AnnotatedTimings("2s", "7d", "", "")
                .applyTo(OperationPolicy.ENGINE_DEFAULTS, engine, "Orders.create");

        assertThat(policy.waitTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(policy.retention()).isEqualTo(new Retention(Duration.ofDays(7), Duration.ofHours(3)));
    }

    @Test
    void aWaitBeyondTheEnginesBoundIsNamedByItsAttribute() {
        assertThatThrownBy(() -> new AnnotatedTimings("11m", "", "", "")
                .applyTo(OperationPolicy.ENGINE_DEFAULTS, engine, "Orders.create"))
                .isInstanceOfSatisfying(IdempotencyConfigurationException.class,
                        e -> assertThat(e.setting()).isEqualTo("Orders.create waitTimeout"));
    }
}
