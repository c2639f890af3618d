package dev.onceonly.spring.boot.web;

import static dev.onceonly.spring.boot.StartupFailure.assertStartupFailure;
import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyMode;
import dev.onceonly.TransactionRunner;
import dev.onceonly.memory.InMemoryIdempotencyStore;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spring.boot.IdempotencyEngineCustomizer;
import dev.onceonly.spring.boot.OnceOnlyAutoConfiguration;
import dev.onceonly.spring.boot.PassThroughTransactionRunner;
import dev.onceonly.spring.web.IdempotencyOwnerResolver;
import dev.onceonly.spring.web.Idempotent;
import dev.onceonly.spring.web.SecurityOwnerResolver;
import dev.onceonly.spring.web.servlet.FoundHandlerMapping;
import dev.onceonly.spring.web.servlet.IdempotencyKeyFilter;
import dev.onceonly.spring.web.servlet.IdempotentEndpoints;
import dev.onceonly.spring.web.servlet.ProblemRequestRejectedHandler;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.servlet.DelegatingFilterProxyRegistrationBean;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.web.firewall.HttpStatusRequestRejectedHandler;
import org.springframework.security.web.firewall.RequestRejectedHandler;
import org.springframework.stereotype.Service;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.filter.DelegatingFilterProxy;

@ExtendWith(OutputCaptureExtension.class)
class OnceOnlyWebMvcAutoConfigurationTest {

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(OnceOnlyAutoConfiguration.class,
                    OnceOnlyWebMvcAutoConfiguration.class))
            .withBean(IdempotencyStore.class, InMemoryIdempotencyStore::new)
            // An in-memory store has no transactions: leased mode, chosen by name as auto never does.
            .withPropertyValues("onceonly.mode=leased");

    @Test
    void registersTheFilterAfterSpringSecurity() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(IdempotentEndpoints.class)
                    .hasSingleBean(SecurityOwnerResolver.class);
            DelegatingFilterProxyRegistrationBean registration = context.getBean("idempotencyKeyFilterRegistration",
                    DelegatingFilterProxyRegistrationBean.class);
            // By name, so that the server's start creates neither the filter nor the engine behind it
            assertThat(registration.getFilter()).isInstanceOf(DelegatingFilterProxy.class);
            assertThat(context.getBean("idempotencyKeyFilter")).isInstanceOf(IdempotencyKeyFilter.class);
            assertThat(registration.getOrder()).isGreaterThan(-100);
        });
    }

    /** Without handler mapping beans the dispatcher uses its defaults, which a mapping bean would switch off. */
    @Test
    void handsTheDispatcherFoundHandlersOnlyBesideTheMappingOfAnnotatedHandlers() {
        runner.run(context -> assertThat(context).doesNotHaveBean(FoundHandlerMapping.class));
        runner.withConfiguration(AutoConfigurations.of(WebMvcAutoConfiguration.class))
                .run(context -> assertThat(context).hasSingleBean(FoundHandlerMapping.class));
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
                .withPropertyValues("onceonly.mode=leased")
                .run(context -> assertThat(context).doesNotHaveBean(IdempotentEndpoints.class));
    }

    @Test
    void badAnnotationValueStopsStartupNamingTheMethod() {
        runner.withConfiguration(AutoConfigurations.of(WebMvcAutoConfiguration.class))
                .withUserConfiguration(BadController.class)
                .run(context -> assertStartupFailure(context).hasMessageContaining("BadController.create")
                        .hasMessageContaining("soon"));
    }

    @Test
    void endpointThatChoosesLeasedModeRunsLeasedBesideATransactionalEngine() {
        runner.withConfiguration(AutoConfigurations.of(WebMvcAutoConfiguration.class))
                .withBean(TransactionRunner.class, PassThroughTransactionRunner::new)
                .withPropertyValues("onceonly.mode=auto")
                .withUserConfiguration(ModeController.class)
                .run(context -> {
                    Map<String, IdempotencyMode> modes = context.getBean(IdempotentEndpoints.class)
                            .annotatedEngines().entrySet().stream().collect(Collectors.toMap(
                                    entry -> entry.getKey().getName(), entry -> entry.getValue().mode()));

                    assertThat(context.getBean(IdempotencyEngine.class).mode())
                            .isEqualTo(IdempotencyMode.TRANSACTIONAL);
                    assertThat(modes).containsEntry("pay", IdempotencyMode.LEASED)
                            .containsEntry("create", IdempotencyMode.TRANSACTIONAL);
                });
    }

    @Test
    void customizedEngineSettingsHoldForTheEndpointsToo() {
        runner.withConfiguration(AutoConfigurations.of(WebMvcAutoConfiguration.class))
                .withBean(IdempotencyEngineCustomizer.class, () -> builder -> builder.retryAfter(Duration.ofSeconds(9)))
                .withUserConfiguration(ModeController.class)
                .run(context -> assertThat(context.getBean(IdempotentEndpoints.class).annotatedEngines().values())
                        .hasSize(2).allSatisfy(engine -> assertThat(engine.retryAfter())
                                .isEqualTo(Duration.ofSeconds(9))));
    }

    @Test
    void endpointThatChoosesTransactionalModeWithoutRunnerStopsStartupNamingTheMethod() {
        runner.withConfiguration(AutoConfigurations.of(WebMvcAutoConfiguration.class))
                .withUserConfiguration(TransactionalController.class)
                .run(context -> assertStartupFailure(context)
                        .hasMessageContaining("TransactionalController.create mode")
                        .hasMessageContaining("needs a TransactionRunner"));
    }

    @Test
    void idempotentOnAServiceMethodStopsStartupSayingWhereToPutIt() {
        runner.withConfiguration(AutoConfigurations.of(WebMvcAutoConfiguration.class))
                .withUserConfiguration(OrderService.class)
                .run(context -> assertStartupFailure(context).hasMessageContaining("OrderService.place")
                        .hasMessageContaining("not a Spring MVC handler method")
                        .hasMessageContaining("@IdempotentMethod"));
    }

    @Test
    void idempotentHandlerMethodsStartNormally() {
        runner.withConfiguration(AutoConfigurations.of(WebMvcAutoConfiguration.class))
                .withUserConfiguration(ModeController.class)
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void withoutSpringSecurityOrResolverStartupWarnsThatRequestsWillGet401(CapturedOutput output) {
        runner.withClassLoader(new FilteredClassLoader(SecurityContextHolder.class)).run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(SecurityOwnerResolver.class);

            assertThat(output).contains("every request to an idempotent endpoint is answered 401")
                    .contains("IdempotencyOwnerResolver");
        });
    }

    @Test
    void allowingAnonymousRequestsNeedsNoWarning(CapturedOutput output) {
        runner.withClassLoader(new FilteredClassLoader(SecurityContextHolder.class))
                .withPropertyValues("onceonly.http.allow-anonymous=true")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(output).doesNotContain("answered 401");
                });
    }

    @RestController
    static class ModeController {
        @PostMapping("/orders")
        @Idempotent("create-order")
        String create() {
            return "created";
        }

        @PostMapping("/payments")
        @Idempotent(value = "pay", mode = IdempotencyMode.LEASED)
        String pay() {
            return "paid";
        }
    }

    @RestController
    static class TransactionalController {
        @PostMapping("/orders")
        @Idempotent(value = "create-order", mode = IdempotencyMode.TRANSACTIONAL)
        String create() {
            return "created";
        }
    }

    @Service
    static class OrderService {
        @Idempotent("place-order")
        String place() {
            return "placed";
        }
    }

    // Issue 8 (hardening)
    @Test
    void defaultOperationNameLongerThanTheStoreHoldsStopsStartup() {
        runner.withConfiguration(AutoConfigurations.of(WebMvcAutoConfiguration.class))
                .withUserConfiguration(LongRouteController.class)
                .run(context -> assertStartupFailure(context).hasMessageContaining("LongRouteController.create")
                        .hasMessageContaining("278 characters"));
    }

    @Test
    void bufferBoundBelowTheStoredBodyLimitOrAnUnsendableChallengeStopsStartup() {
        runner.withPropertyValues("onceonly.http.max-response-body=2MB", "onceonly.http.max-buffered-response=1MB")
                .run(context -> assertStartupFailure(context)
                        .hasMessageContaining("onceonly.http.max-buffered-response"));
        runner.withPropertyValues("onceonly.http.authentication-challenge=Bearer\u00e9")
                .run(context -> assertStartupFailure(context)
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
