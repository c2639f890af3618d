package dev.onceonly.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.memory.InMemoryIdempotencyStore;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spring.boot.OnceOnlyAutoConfiguration;
import org.assertj.core.api.AbstractThrowableAssert;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.boot.test.context.assertj.AssertableWebApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.security.web.firewall.HttpStatusRequestRejectedHandler;
import org.springframework.security.web.firewall.RequestRejectedHandler;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

class OnceOnlyWebMvcAutoConfigurationTest {

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(OnceOnlyAutoConfiguration.class,
                    OnceOnlyWebMvcAutoConfiguration.class))
            .withBean(IdempotencyStore.class, InMemoryIdempotencyStore::new);

    @Test
    void registersTheFilterAfterSpringSecurity() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(IdempotentEndpoints.class)
                    .hasSingleBean(SecurityOwnerResolver.class);
            FilterRegistrationBean<?> registration = context.getBean("idempotencyKeyFilterRegistration",
                    FilterRegistrationBean.class);
            assertThat(registration.getFilter()).isInstanceOf(IdempotencyKeyFilter.class);
            assertThat(registration.getOrder()).isGreaterThan(-100);
        });
    }

    @Test
    void backsOffForTheUsersOwnerResolverAndEndpoints() {
        IdempotencyOwnerResolver byApiClient = request -> "client-" + request.getRemoteUser();

        runner.withBean(IdempotencyOwnerResolver.class, () -> byApiClient).run(context -> {
            assertThat(context.getBean(IdempotencyOwnerResolver.class)).isSameAs(byApiClient);
            assertThat(context).doesNotHaveBean(SecurityOwnerResolver.class);
        });
    }

    @Test
    void staysAwayFromNonWebApplications() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(OnceOnlyAutoConfiguration.class,
                        OnceOnlyWebMvcAutoConfiguration.class))
                .withBean(IdempotencyStore.class, InMemoryIdempotencyStore::new)
                .run(context -> assertThat(context).doesNotHaveBean(IdempotentEndpoints.class));
    }

    @Test
    void badAnnotationValueStopsStartupNamingTheMethod() {
        runner.withConfiguration(AutoConfigurations.of(WebMvcAutoConfiguration.class))
                .withUserConfiguration(BadController.class)
                .run(context -> startupFailure(context).hasMessageContaining("BadController.create")
                        .hasMessageContaining("soon"));
    }

    // Issue 8 (hardening)
    @Test
    void defaultOperationNameLongerThanTheStoreHoldsStopsStartup() {
        runner.withConfiguration(AutoConfigurations.of(WebMvcAutoConfiguration.class))
                .withUserConfiguration(LongRouteController.class)
                .run(context -> startupFailure(context).hasMessageContaining("LongRouteController.create")
                        .hasMessageContaining("278 characters"));
    }

    @Test
    void bufferBoundBelowTheStoredBodyLimitOrAnUnsendableChallengeStopsStartup() {
        runner.withPropertyValues("onceonly.http.max-response-body=2MB", "onceonly.http.max-buffered-response=1MB")
                .run(context -> startupFailure(context)
                        .hasMessageContaining("onceonly.http.max-buffered-response"));
        runner.withPropertyValues("onceonly.http.authentication-challenge=Bearer\u00e9")
                .run(context -> startupFailure(context)
                        .hasMessageContaining("onceonly.http.authentication-challenge"));
    }

    @Test
    void answersFirewallRejectionsWithProblemsAndBacksOffForTheApplicationsHandler() {
        RequestRejectedHandler own = new HttpStatusRequestRejectedHandler();

        runner.run(context -> assertThat(context).getBean(RequestRejectedHandler.class)
                .isInstanceOf(ProblemRequestRejectedHandler.class));
        runner.withBean(RequestRejectedHandler.class, () -> own).run(context ->
                assertThat(context.getBean(RequestRejectedHandler.class)).isSameAs(own));
    }

    /** The root cause of a failed startup. */
    private static AbstractThrowableAssert<?, ?> startupFailure(AssertableWebApplicationContext context) {
        return assertThat(context).hasFailed().getFailure().extracting(NestedExceptionUtils::getMostSpecificCause)
                .asInstanceOf(InstanceOfAssertFactories.THROWABLE);
    }

    @RestController
    static class LongRouteController {
        private static final String SEGMENT = "/segment-012345678901234567890123456789";

        @PostMapping(SEGMENT + SEGMENT + SEGMENT + SEGMENT + SEGMENT + SEGMENT + SEGMENT)
        @Idempotent
        String create() {
            return "created";
        }
    }

    @RestController
    static class BadController {
        @PostMapping("/bad")
        @Idempotent(value = "bad", waitTimeout = "soon")
        String create() {
            return "created";
        }
    }
}
