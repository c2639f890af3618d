package dev.onceonly.spring.boot.web;

import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyKeyFormat;
import dev.onceonly.spring.boot.OnceOnlyAutoConfiguration;
import dev.onceonly.spring.boot.OnceOnlyProperties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
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

    /**
     * Without Spring Security the owner can only be the container's principal. Requests that no container realm
     * or filter authenticated would all get 401, and that cannot be told at startup (an application behind an
     * authenticating gateway is fine), so it is a warning, not a failure.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingClass("org.springframework.security.core.context.SecurityContextHolder")
    static class PrincipalOwner {

        private static final Logger log = LoggerFactory.getLogger(PrincipalOwner.class);

        @Bean
        @ConditionalOnMissingBean
        IdempotencyOwnerResolver idempotencyOwnerResolver(OnceOnlyProperties properties) {
            if (!properties.http().allowAnonymous()) {
                log.warn("OnceOnly takes the owner of idempotency keys from the servlet container's principal "
                        + "(HttpServletRequest.getUserPrincipal()), because Spring Security is not on the class "
                        + "path and no IdempotencyOwnerResolver bean is defined. Unless the container or a filter "
                        + "authenticates requests, every request to an idempotent endpoint is answered 401. Add "
                        + "Spring Security, define an IdempotencyOwnerResolver bean (the tenant or API client), or "
                        + "set onceonly.http.allow-anonymous=true.");
            }
            return IdempotencyOwnerResolver.principal();
        }
    }
}
