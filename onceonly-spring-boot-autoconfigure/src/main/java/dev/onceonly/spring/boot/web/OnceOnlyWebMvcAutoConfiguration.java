package dev.onceonly.spring.boot.web;

import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyKeyFormat;
import dev.onceonly.spring.async.AsynchronousOperations;
import dev.onceonly.spring.async.OperationOutcomes;
import dev.onceonly.spring.boot.OnceOnlyAutoConfiguration;
import dev.onceonly.spring.boot.OnceOnlyProperties;
import dev.onceonly.spring.web.AcceptedRequest;
import dev.onceonly.spring.web.IdempotencyListener;
import dev.onceonly.spring.web.IdempotencyOwnerResolver;
import dev.onceonly.spring.web.OperationResponses;
import dev.onceonly.spring.web.ProblemResponses;
import dev.onceonly.spring.web.ResponseSnapshots;
import dev.onceonly.spring.web.SecurityOwnerResolver;
import dev.onceonly.spring.web.servlet.CallerProblemResolver;
import dev.onceonly.spring.web.servlet.FilterArgumentResolver;
import dev.onceonly.spring.web.servlet.FoundHandlerMapping;
import dev.onceonly.spring.web.servlet.IdempotencyKeyFilter;
import dev.onceonly.spring.web.servlet.IdempotentEndpoints;
import dev.onceonly.spring.web.servlet.OperationStatus;
import dev.onceonly.spring.web.servlet.ProblemRequestRejectedHandler;
import dev.onceonly.spring.web.servlet.RequestOwners;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.DelegatingFilterProxyRegistrationBean;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.security.web.firewall.RequestRejectedHandler;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;
import tools.jackson.databind.json.JsonMapper;

/**
 * The {@code Idempotency-Key} protocol for Spring MVC: the filter, its endpoints and owner resolution.
 */
@AutoConfiguration(after = OnceOnlyAutoConfiguration.class,
        afterName = {"dev.onceonly.spring.boot.async.OnceOnlyAsynchronousAutoConfiguration",
                "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration",
                "org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration"})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(RequestMappingHandlerMapping.class)
@ConditionalOnBean(IdempotencyEngine.class)
@Import(WebProblemsConfiguration.class)
public class OnceOnlyWebMvcAutoConfiguration {

    /**
     * The order of the {@code Idempotency-Key} filter: after Spring Security's filter chain (order -100), so that the
     * owner is known.
     *
     * <p>Filters ordered before it (Spring Security, Boot's character encoding, form content and request context
     * filters) run outside the idempotent execution and see the final response. Every filter ordered after it,
     * which includes every filter registered without an order, runs inside: in transactional mode inside the
     * transaction, once per execution (never on a replay), writing into the held-back response, which it cannot
     * send to the client early (its {@code flushBuffer()} commits nothing) and whose stored copy it cannot empty.
     * The handler of a request to an annotated endpoint is the one found for the request as it reached this filter
     * (whose annotation made it idempotent): a filter after it that changes what the request maps to (its
     * {@code Content-Type}, a header a mapping's condition reads) does not send it to another handler.
     */
    public static final int FILTER_ORDER = 0;

    @Bean
    @ConditionalOnMissingBean
    IdempotentEndpoints idempotentEndpoints(ApplicationContext context, IdempotencyEngine engine,
            OnceOnlyProperties properties) {
        return new IdempotentEndpoints(context, engine, properties.http().pathEndpoints());
    }

    /*
     * The filter, the status resource of asynchronous operations and their workers answer and store by one set of
     * rules: each piece is made once, here, and shared.
     */

    /** What an idempotent call of a handler threw, answered as the protocol's problem rather than a 500. */
    @Bean
    @ConditionalOnMissingBean
    CallerProblemResolver onceOnlyCallerProblemResolver(ProblemResponses problems) {
        return new CallerProblemResolver(problems);
    }

    @Bean
    RequestOwners onceOnlyRequestOwners(IdempotencyOwnerResolver ownerResolver, OnceOnlyProperties properties) {
        return new RequestOwners(ownerResolver, properties.http().allowAnonymous());
    }

    @Bean
    OperationResponses onceOnlyOperationResponses(ProblemResponses problems, ObjectProvider<JsonMapper> json,
            IdempotencyEngine engine) {
        return new OperationResponses(problems, json.getIfAvailable(JsonMapper::new), engine.clock());
    }

    @Bean
    @ConditionalOnMissingBean
    IdempotencyKeyFilter idempotencyKeyFilter(IdempotentEndpoints endpoints, IdempotencyKeyFormat keyFormat,
            RequestOwners owners, ResponseSnapshots snapshots, OperationResponses operations,
            ProblemResponses problems, OnceOnlyProperties properties, ObjectProvider<IdempotencyListener> listeners) {
        OnceOnlyProperties.Http http = properties.http();
        return new IdempotencyKeyFilter(endpoints, keyFormat, properties.key().headerName(), owners, snapshots,
                operations, problems, http.maxRequestBody().toBytes(), http.maxBufferedResponse().toBytes(),
                listeners.orderedStream().toList());
    }

    /**
     * Registers the filter by its bean's name, not the bean itself: the server's start then does not create the
     * engine and the store. A database that cannot be reached, or a Flyway that fails, is reported by the bean that
     * met it, not as a failure of OnceOnly's filter registration.
     */
    @Bean
    @ConditionalOnMissingBean(name = "idempotencyKeyFilterRegistration")
    DelegatingFilterProxyRegistrationBean idempotencyKeyFilterRegistration() {
        DelegatingFilterProxyRegistrationBean registration = new DelegatingFilterProxyRegistrationBean(
                "idempotencyKeyFilter");
        registration.setName("idempotencyKeyFilter");
        registration.setOrder(FILTER_ORDER);
        return registration;
    }

    /** The status resource of asynchronous endpoints' operations, where asynchronous operations are set up. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBean(AsynchronousOperations.class)
    static class Operations {

        @Bean
        @ConditionalOnMissingBean
        OperationStatus operationStatus(AsynchronousOperations operations, IdempotencyKeyFormat keyFormat,
                RequestOwners owners, OperationResponses responses) {
            return new OperationStatus(operations, keyFormat, owners, responses);
        }

        /** The filter's storage rules for what workers store: asynchronous endpoints replay it as any response. */
        @Bean
        @ConditionalOnMissingBean
        OperationOutcomes onceOnlyOperationOutcomes(ResponseSnapshots snapshots) {
            return snapshots::codec;
        }
    }

    /**
     * Hands the dispatcher the handler the filter found, so that it is looked up once a request. Only beside the
     * mappings of annotated handlers: where no handler mapping is a bean, the dispatcher falls back to its default
     * ones, which a bean of its own would switch off.
     */
    @Bean
    @ConditionalOnBean(RequestMappingHandlerMapping.class)
    HandlerMapping onceOnlyFoundHandlerMapping() {
        return new FoundHandlerMapping();
    }

    /**
     * Lets idempotent handlers declare an {@link dev.onceonly.Attempt} parameter, asynchronous ones an
     * {@link AcceptedRequest}.
     */
    @Bean
    WebMvcConfigurer onceOnlyAttemptArgument() {
        return new WebMvcConfigurer() {
            @Override
            public void addArgumentResolvers(List<HandlerMethodArgumentResolver> resolvers) {
                resolvers.add(new FilterArgumentResolver());
            }
        };
    }

    /**
     * Spring Security's firewall rejections as 400 problems: the firewall runs before everything else and answers
     * with the container's error page otherwise. Backs off for the application's own handler.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(RequestRejectedHandler.class)
    static class FirewallProblems {

        @Bean
        @ConditionalOnMissingBean
        RequestRejectedHandler problemRequestRejectedHandler(ProblemResponses problems) {
            return new ProblemRequestRejectedHandler(problems);
        }
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
