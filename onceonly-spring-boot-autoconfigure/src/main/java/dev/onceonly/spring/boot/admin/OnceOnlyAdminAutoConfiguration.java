package dev.onceonly.spring.boot.admin;

import dev.onceonly.IdempotencyEngine;
import dev.onceonly.spring.OnceOnlySetup;
import dev.onceonly.spring.boot.OnceOnlyAutoConfiguration;
import dev.onceonly.spring.boot.OnceOnlyProperties;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.web.annotation.WebEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@code onceonly} Actuator endpoint ({@link OnceOnlyEndpoint}), where Actuator is, once it is exposed
 * ({@code management.endpoints.web.exposure.include}); it is not by default.
 */
@AutoConfiguration(after = OnceOnlyAutoConfiguration.class)
@ConditionalOnClass({WebEndpoint.class, ConditionalOnAvailableEndpoint.class})
@ConditionalOnBean(IdempotencyEngine.class)
public class OnceOnlyAdminAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint
    OnceOnlyEndpoint onceOnlyEndpoint(IdempotencyEngine engine, OnceOnlySetup setup, OnceOnlyProperties properties) {
        return new OnceOnlyEndpoint(engine.administration(), setup, properties.admin().role(),
                properties.http().problemTypeBase());
    }
}
