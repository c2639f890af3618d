package dev.onceonly.spring.method;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyKeyReusedException;
import dev.onceonly.IdempotencyMode;
import dev.onceonly.memory.InMemoryIdempotencyStore;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import tools.jackson.databind.json.JsonMapper;

/** {@link IdempotentMethod} in a Spring application without Spring Boot: its two beans made by hand. */
class PlainSpringMethodTest {

    @Test
    void aCallRepeatedWithItsKeyReturnsTheFirstResultAndRunsOnce() {
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(PlainSpring.class,
                Payments.class)) {
            Payments payments = context.getBean(Payments.class);

            String first = payments.pay("alice", "pay-1", 100);
            String retry = payments.pay("alice", "pay-1", 100);

            assertThat(retry).isEqualTo(first).isEqualTo("payment 1 of 100");
            assertThat(payments.charged()).isEqualTo(1);
            assertThatThrownBy(() -> payments.pay("alice", "pay-1", 200))
                    .isInstanceOf(IdempotencyKeyReusedException.class);
            assertThat(payments.pay("bob", "pay-1", 100)).isEqualTo("payment 2 of 100");
        }
    }

    /** What onceonly-spring-boot-autoconfigure would make, here made by hand. */
    @Configuration(proxyBeanMethods = false)
    static class PlainSpring {

        @Bean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
        static IdempotentMethodPostProcessor idempotentMethodPostProcessor() {
            return new IdempotentMethodPostProcessor();
        }

        @Bean
        IdempotencyEngine idempotencyEngine() {
            return IdempotencyEngine.builder(new InMemoryIdempotencyStore()).mode(IdempotencyMode.LEASED).build();
        }

        @Bean
        IdempotentMethods idempotentMethods(ListableBeanFactory beans, IdempotencyEngine engine) {
            // No transactions here: the methods run leased.
            return new IdempotentMethods(beans, engine, null, null, new JsonMapper(), false);
        }
    }

    static class Payments {

        private final AtomicInteger charges = new AtomicInteger();

        /** Read through the proxy, whose own fields are never set. */
        public int charged() {
            return charges.get();
        }

        @IdempotentMethod(value = "pay", mode = IdempotencyMode.LEASED)
        public String pay(@IdempotencyOwner String customer, @IdempotencyKeyParam String key, int amount) {
            return "payment " + charges.incrementAndGet() + " of " + amount;
        }
    }
}
