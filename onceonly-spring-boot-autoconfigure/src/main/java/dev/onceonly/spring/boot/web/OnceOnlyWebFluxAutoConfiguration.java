package dev.onceonly.spring.boot.web;

import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyKeyFormat;
import dev.onceonly.spring.boot.OnceOnlyAutoConfiguration;
import dev.onceonly.spring.boot.OnceOnlyProperties;
import dev.onceonly.spring.web.IdempotencyListener;
import dev.onceonly.spring.web.ProblemResponses;
import dev.onceonly.spring.web.ReactiveIdempotencyOwnerResolver;
import dev.onceonly.spring.web.ResponseSnapshots;
import dev.onceonly.spring.web.reactive.ReactiveAttemptArgumentResolver;
import dev.onceonly.spring.web.reactive.ReactiveCallerProblemHandler;
import dev.onceonly.spring.web.reactive.ReactiveIdempotencyKeyFilter;
import dev.onceonly.spring.web.reactive.ReactiveIdempotentEndpoints;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.web.reactive.config.WebFluxConfigurer;
import org.springframework.web.reactive.result.method.annotation.ArgumentResolverConfigurer;
import org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerMapping;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The {@code Idempotency-Key} protocol for WebFlux: the web filter, its endpoints, owner resolution and the
 * scheduler on which the store's blocking calls run.
 */
@AutoConfiguration(after = OnceOnlyAutoConfiguration.class,
        afterName = "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration")
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass(RequestMappingHandlerMapping.class)
@ConditionalOnBean(IdempotencyEngine.class)
@Import(WebProblemsConfiguration.class)
public class OnceOnlyWebFluxAutoConfiguration {

    /**
     * The order of the {@code Idempotency-Key} web filter: after Spring Security's (order -100), so that the owner is
     * known. Filters ordered after it run inside the idempotent execution, once per execution, never on a replay.
     */
    public static final int FILTER_ORDER = 0;

    /** The name of the scheduler on which the store, Redis and the handler of a first execution run. */
    public static final String SCHEDULER = "onceOnlyHttpScheduler";

    @Bean
    @ConditionalOnMissingBean
    ReactiveIdempotentEndpoints reactiveIdempotentEndpoints(ApplicationContext context, IdempotencyEngine engine,
            OnceOnlyProperties properties) {
        return new ReactiveIdempotentEndpoints(context, engine, properties.http().pathEndpoints());
    }

    /**
     * Threads that may block, apart from the application's {@code Schedulers.boundedElastic()}: a duplicate storm
     * waiting here can never starve a handler that moves work there.
     */
    @Bean(name = SCHEDULER, destroyMethod = "dispose")
    @ConditionalOnMissingBean(name = SCHEDULER)
    Scheduler onceOnlyHttpScheduler() {
        return Schedulers.newBoundedElastic(Schedulers.DEFAULT_BOUNDED_ELASTIC_SIZE,
                Schedulers.DEFAULT_BOUNDED_ELASTIC_QUEUESIZE, "onceonly-http");
    }

    /** What an idempotent call of a handler threw, answered as the protocol's problem rather than a 500. */
    @Bean
    @ConditionalOnMissingBean
    ReactiveCallerProblemHandler onceOnlyCallerProblemHandler(ProblemResponses problems) {
        return new ReactiveCallerProblemHandler(problems);
    }

    @Bean
    @ConditionalOnMissingBean
    ReactiveIdempotencyKeyFilter reactiveIdempotencyKeyFilter(ReactiveIdempotentEndpoints endpoints,
            IdempotencyKeyFormat keyFormat, ReactiveIdempotencyOwnerResolver ownerResolver,
            OnceOnlyProperties properties, ObjectProvider<IdempotencyListener> listeners, ProblemResponses problems,
            ResponseSnapshots snapshots, @Qualifier(SCHEDULER) Scheduler scheduler) {
        OnceOnlyProperties.Http http = properties.http();
        return new ReactiveIdempotencyKeyFilter(endpoints, keyFormat, properties.key().headerName(), ownerResolver,
                http.allowAnonymous(), snapshots, problems,
                http.maxRequestBody().toBytes(), http.maxBufferedResponse().toBytes(),
                listeners.orderedStream().toList(), scheduler, FILTER_ORDER);
    }

    /** Lets idempotent handlers declare an {@link dev.onceonly.Attempt} parameter. */
    @Bean
    WebFluxConfigurer onceOnlyReactiveAttemptArgument() {
        return new WebFluxConfigurer() {
            @Override
            public void configureArgumentResolvers(ArgumentResolverConfigurer configurer) {
                configurer.addCustomResolver(new ReactiveAttemptArgumentResolver());
            }
        };
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.security.core.context.ReactiveSecurityContextHolder")
    static class SecurityOwner {

        @Bean
        @ConditionalOnMissingBean
        ReactiveIdempotencyOwnerResolver reactiveIdempotencyOwnerResolver() {
            return ReactiveIdempotencyOwnerResolver.securityContext();
        }
    }

    /** Without Spring Security the owner is the exchange's principal, which an authenticating filter sets. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingClass("org.springframework.security.core.context.ReactiveSecurityContextHolder")
    static class PrincipalOwner {

        @Bean
        @ConditionalOnMissingBean
        ReactiveIdempotencyOwnerResolver reactiveIdempotencyOwnerResolver() {
            return exchange -> exchange.getPrincipal().map(java.security.Principal::getName);
        }
    }
}
