package dev.onceonly.spring.boot.method;

import dev.onceonly.IdempotencyEngine;
import dev.onceonly.TransactionRunner;
import dev.onceonly.spring.boot.OnceOnlyAutoConfiguration;
import dev.onceonly.spring.boot.OnceOnlyProperties;
import dev.onceonly.spring.method.IdempotentMethod;
import dev.onceonly.spring.method.IdempotentMethodPostProcessor;
import dev.onceonly.spring.method.IdempotentMethods;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;
import org.springframework.transaction.PlatformTransactionManager;
import tools.jackson.databind.json.JsonMapper;

/** {@link IdempotentMethod} on the methods of any bean. */
@AutoConfiguration(after = OnceOnlyAutoConfiguration.class,
        afterName = "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration")
@ConditionalOnClass(JsonMapper.class)
@ConditionalOnBean(IdempotencyEngine.class)
public class OnceOnlyMethodAutoConfiguration {

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static IdempotentMethodPostProcessor idempotentMethodPostProcessor() {
        return new IdempotentMethodPostProcessor();
    }

    @Bean
    IdempotentMethods idempotentMethods(ListableBeanFactory beans, IdempotencyEngine engine,
            ObjectProvider<TransactionRunner> runner, ObjectProvider<PlatformTransactionManager> transactions,
            ObjectProvider<JsonMapper> json, ObjectProvider<OnceOnlyProperties> properties) {
        // No properties where the application made its engine and switched OnceOnly's configuration off
        OnceOnlyProperties configured = properties.getIfAvailable();
        return new IdempotentMethods(beans, engine, runner.getIfUnique(), transactions.getIfUnique(),
                json.getIfAvailable(JsonMapper::new), configured != null && configured.method().allowAnonymous());
    }
}
