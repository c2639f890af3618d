package dev.onceonly.spring.boot.web;

import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyKeyFormat;
import dev.onceonly.spring.boot.OnceOnlyAutoConfiguration;
import dev.onceonly.spring.boot.OnceOnlyProperties;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/**
 * The {@code Idempotency-Key} protocol for Spring MVC: the filter, its endpoints and owner resolution.
 */
@AutoConfiguration(after = OnceOnlyAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(RequestMappingHandlerMapping.class)
@ConditionalOnBean(IdempotencyEngine.class)
public class OnceOnlyWebMvcAutoConfiguration {

    /**
     * After Spring Security's filter chain (order -100), so the owner is known; before filters of default order,
     * so that they do not run inside the idempotent transaction.
     */
    public static final int FILTER_ORDER = 0;

    @Bean
    @ConditionalOnMissingBean
    IdempotentEndpoints idempotentEndpoints(ApplicationContext context, IdempotencyEngine engine,
            OnceOnlyProperties properties) {
        return new IdempotentEndpoints(context, engine, properties);
    }

    @Bean
    @ConditionalOnMissingBean(name = "idempotencyKeyFilterRegistration")
    FilterRegistrationBean<IdempotencyKeyFilter> idempotencyKeyFilterRegistration(IdempotentEndpoints endpoints,
            IdempotencyKeyFormat keyFormat, IdempotencyOwnerResolver ownerResolver, IdempotencyEngine engine,
            OnceOnlyProperties properties, ObjectProvider<IdempotencyListener> listeners) {
        OnceOnlyProperties.Http http = properties.http();
        IdempotencyKeyFilter filter = new IdempotencyKeyFilter(endpoints, keyFormat, properties.key().headerName(),
                ownerResolver,
                new ResponseSnapshots(http.replayHeaders(), http.redactedResponseFields(), http.maxResponseBody().toBytes()),
                new ProblemResponses(http.problemTypeBase(), http.keyReusedStatus(), engine.retryAfter()),
                http.maxRequestBody().toBytes(), http.allowAnonymous(), listeners.orderedStream().toList());
        FilterRegistrationBean<IdempotencyKeyFilter> registration = new FilterRegistrationBean<>(filter);
        registration.setName("idempotencyKeyFilter");
        registration.setOrder(FILTER_ORDER);
        return registration;
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.security.core.context.SecurityContextHolder")
    static class SecurityOwner {

        @Bean
        @ConditionalOnMissingBean
        IdempotencyOwnerResolver idempotencyOwnerResolver() {
            return new SecurityOwnerResolver();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingClass("org.springframework.security.core.context.SecurityContextHolder")
    static class PrincipalOwner {

        @Bean
        @ConditionalOnMissingBean
        IdempotencyOwnerResolver idempotencyOwnerResolver() {
            return IdempotencyOwnerResolver.principal();
        }
    }
}
