package dev.onceonly.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.web.servlet.function.RouterFunctions.route;

import dev.onceonly.memory.InMemoryIdempotencyStore;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spring.boot.OnceOnlyAutoConfiguration;
import dev.onceonly.spring.web.IdempotencyOwnerResolver;
import dev.onceonly.spring.web.Idempotent;
import dev.onceonly.spring.web.ResponseSnapshots;
import dev.onceonly.spring.web.servlet.IdempotencyKeyFilter;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableWebApplicationContext;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcRegistrations;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.HttpRequestHandler;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.ServerResponse;
import org.springframework.web.servlet.handler.SimpleUrlHandlerMapping;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/**
 * The filter finds a request's handler as the dispatcher would, and the dispatcher does not look it up again
 * (issue 14: "looks the handler up a second time after the dispatcher's own lookup").
 */
class HandlerLookupTest {

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(WebMvcAutoConfiguration.class, OnceOnlyAutoConfiguration.class,
                    OnceOnlyWebMvcAutoConfiguration.class))
            .withBean(IdempotencyStore.class, InMemoryIdempotencyStore::new)
            .withBean(IdempotencyOwnerResolver.class, () -> request -> "alice")
            .withUserConfiguration(CountingLookups.class, Handlers.class)
            // An in-memory store has no transactions: leased mode, chosen by name as auto never does.
            .withPropertyValues("onceonly.mode=leased");

    @Test
    void aRequestToAnAnnotatedEndpointIsLookedUpOnceAndReplayed() {
        runner.run(context -> {
            String key = UUID.randomUUID().toString();
            MockHttpServletResponse first = send(context, post("/refunds"), key);
            MockHttpServletResponse retry = send(context, post("/refunds"), key);

            assertThat(first.getContentAsString()).isEqualTo("refund 1");
            assertThat(retry.getContentAsString()).isEqualTo("refund 1");
            assertThat(retry.getHeader(ResponseSnapshots.REPLAYED_HEADER)).isEqualTo("true");
            assertThat(context.getBean(CountingLookups.class).lookups).hasValue(2);
        });
    }

    /** A POST whose path no annotated route matches is left to the dispatcher's lookup alone. */
    @Test
    void aRequestToAPathNoAnnotatedRouteMatchesIsLookedUpOnlyByTheDispatcher() {
        runner.run(context -> {
            MockHttpServletResponse response = send(context, post("/receipts"), UUID.randomUUID().toString());

            assertThat(response.getContentAsString()).isEqualTo("receipt");
            assertThat(context.getBean(CountingLookups.class).lookups).hasValue(1);
        });
    }

    /**
     * A request that is not idempotent is looked up by the dispatcher as the filters after ours leave it: a router
     * function (ordered before annotated handlers, on an annotated route) reads the request it was mapped with, here
     * one that a later filter wrapped.
     */
    @Test
    void aRequestToAnotherHandlerIsMappedAsTheFiltersAfterOursLeaveIt() {
        runner.withUserConfiguration(NoteRoutes.class).run(context -> {
            MockHttpServletResponse response = send(context, post("/refunds"), UUID.randomUUID().toString(),
                    new AddingHeader());

            assertThat(response.getContentAsString()).isEqualTo("note by later-filter");
            assertThat(context.getBean(Handlers.class).refunds).hasValue(0);
        });
    }

    /**
     * A mapping ordered before the annotated handler's takes the request in the dispatcher, so the request is not
     * idempotent: the annotation is on a handler that never runs for it.
     */
    @Test
    void aMappingOrderedBeforeTheAnnotatedHandlersDecidesWhereTheRequestGoes() {
        runner.withUserConfiguration(EarlierMapping.class).run(context -> {
            String key = UUID.randomUUID().toString();
            send(context, post("/refunds"), key);
            MockHttpServletResponse retry = send(context, post("/refunds"), key);

            assertThat(retry.getContentAsString()).isEqualTo("earlier 2");
            assertThat(retry.getHeader(ResponseSnapshots.REPLAYED_HEADER)).isNull();
            assertThat(context.getBean(Handlers.class).refunds).hasValue(0);
        });
    }

    /** Sends {@code request} through the filter, and then through {@code later}. */
    private static MockHttpServletResponse send(AssertableWebApplicationContext context,
            MockHttpServletRequestBuilder request, String key, Filter... later) throws Exception {
        Filter filter = context.getBean(IdempotencyKeyFilter.class);
        MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).addFilters(filter).addFilters(later).build();
        return mvc.perform(request.header("Idempotency-Key", key)).andReturn().getResponse();
    }

    /** A filter ordered after ours that wraps the request with a header of its own. */
    private static final class AddingHeader extends OncePerRequestFilter {
        @Override
        protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
                throws ServletException, IOException {
            chain.doFilter(new HttpServletRequestWrapper(request) {
                @Override
                public @Nullable String getHeader(String name) {
                    return "X-Added-By".equalsIgnoreCase(name) ? "later-filter" : super.getHeader(name);
                }

                @Override
                public Enumeration<String> getHeaders(String name) {
                    return "X-Added-By".equalsIgnoreCase(name) ? Collections.enumeration(List.of("later-filter"))
                            : super.getHeaders(name);
                }
            }, response);
        }
    }

    /** Counts the lookups of annotated handlers' mapping. */
    @Configuration(proxyBeanMethods = false)
    static class CountingLookups implements WebMvcRegistrations {
        final AtomicInteger lookups = new AtomicInteger();

        @Override
        public RequestMappingHandlerMapping getRequestMappingHandlerMapping() {
            return new RequestMappingHandlerMapping() {
                @Override
                protected @Nullable HandlerMethod getHandlerInternal(HttpServletRequest request) throws Exception {
                    lookups.incrementAndGet();
                    return super.getHandlerInternal(request);
                }
            };
        }
    }

    /** Takes POST /refunds before the annotated handler's mapping. */
    @Configuration(proxyBeanMethods = false)
    static class EarlierMapping {
        private final AtomicInteger calls = new AtomicInteger();

        @Bean
        SimpleUrlHandlerMapping earlierMapping() {
            HttpRequestHandler earlier = (request, response) -> response.getWriter()
                    .write("earlier " + calls.incrementAndGet());
            return new SimpleUrlHandlerMapping(Map.of("/refunds", earlier), -1);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class NoteRoutes {
        @Bean
        RouterFunction<ServerResponse> notes() {
            return route().POST("/refunds",
                    request -> ServerResponse.ok().body("note by " + request.headers().firstHeader("X-Added-By")))
                    .build();
        }
    }

    @RestController
    static class Handlers {
        final AtomicInteger refunds = new AtomicInteger();

        @PostMapping("/refunds")
        @Idempotent
        String refund() {
            return "refund " + refunds.incrementAndGet();
        }

        @PostMapping("/receipts")
        String receipt() {
            return "receipt";
        }
    }
}
