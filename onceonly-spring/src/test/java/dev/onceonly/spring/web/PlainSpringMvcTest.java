package dev.onceonly.spring.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyKeyFormat;
import dev.onceonly.IdempotencyMode;
import dev.onceonly.http.ProblemCatalogue;
import dev.onceonly.memory.InMemoryIdempotencyStore;
import dev.onceonly.spring.web.servlet.IdempotencyKeyFilter;
import dev.onceonly.spring.web.servlet.IdempotentEndpoints;
import dev.onceonly.spring.web.servlet.RequestOwners;
import java.net.URI;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.mock.web.MockServletContext;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.support.AnnotationConfigWebApplicationContext;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;
import tools.jackson.databind.json.JsonMapper;

/**
 * onceonly-spring in a Spring MVC application without Spring Boot: its beans made by hand, as {@link PlainSpringMvc}
 * shows (docs/core.md points here), and the protocol answering as it does under Boot.
 */
class PlainSpringMvcTest {

    private AnnotationConfigWebApplicationContext context;
    private MockMvc mvc;

    @BeforeEach
    void start() {
        context = new AnnotationConfigWebApplicationContext();
        context.setServletContext(new MockServletContext());
        context.register(PlainSpringMvc.class, Orders.class);
        context.refresh();
        mvc = MockMvcBuilders.webAppContextSetup(context).addFilters(context.getBean(IdempotencyKeyFilter.class))
                .build();
    }

    @AfterEach
    void stop() {
        context.close();
    }

    @Test
    void aRetryWithTheSameKeyIsReplayedAndTheHandlerRunsOnce() throws Exception {
        for (int request = 0; request < 2; request++) {
            mvc.perform(post("/orders").header("Idempotency-Key", "plain-spring-key-1")
                            .contentType(MediaType.APPLICATION_JSON).content("{\"item\":\"book\"}"))
                    .andExpect(status().isCreated()).andExpect(content().json("{\"order\":1}"))
                    .andExpect(header().string("Idempotent-Replayed", request == 0 ? null : "true"));
        }
        assertThat(context.getBean(Orders.class).created).hasValue(1);
    }

    @Test
    void aReusedKeyAndAMissingKeyAreTheProtocolsProblems() throws Exception {
        mvc.perform(post("/orders").header("Idempotency-Key", "plain-spring-key-2")
                .contentType(MediaType.APPLICATION_JSON).content("{\"item\":\"book\"}")).andExpect(status().isCreated());

        mvc.perform(post("/orders").header("Idempotency-Key", "plain-spring-key-2")
                        .contentType(MediaType.APPLICATION_JSON).content("{\"item\":\"pen\"}"))
                .andExpect(status().isUnprocessableContent())
                .andExpect(jsonPath("$.type").value("https://onceonly.dev/problems/idempotency-key-reused"));
        mvc.perform(post("/orders").contentType(MediaType.APPLICATION_JSON).content("{\"item\":\"book\"}"))
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.type").value("https://onceonly.dev/problems/missing-idempotency-key"));
        assertThat(context.getBean(Orders.class).created).hasValue(1);
    }

    @Test
    void anEndpointConfiguredByPathRefusesARequestWithoutAKey() throws Exception {
        mvc.perform(post("/legacy/payments/invoice-1").contentType(MediaType.APPLICATION_JSON).content("{}"))
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.type").value("https://onceonly.dev/problems/missing-idempotency-key"));
    }

    // Issue 8 (hardening): no pattern can match a path that does not decode; the filter passes it on to the
    // dispatcher, which answers it, rather than failing.
    @Test
    void aPathThatDoesNotDecodeIsNoConfiguredEndpointRatherThanAnError() throws Exception {
        MockHttpServletRequest request = new MockHttpServletRequest("POST", "/legacy/payments/inv%ZZ1");
        MockHttpServletResponse response = new MockHttpServletResponse();
        MockFilterChain chain = new MockFilterChain();

        context.getBean(IdempotencyKeyFilter.class).doFilter(request, response, chain);

        assertThat(chain.getRequest()).isSameAs(request);
        assertThat(response.getStatus()).isEqualTo(200);
    }

    /** What onceonly-spring-boot-autoconfigure would make from {@code onceonly.*}, here made by hand. */
    @Configuration(proxyBeanMethods = false)
    @EnableWebMvc
    static class PlainSpringMvc {

        @Bean
        IdempotencyEngine idempotencyEngine() {
            return IdempotencyEngine.builder(new InMemoryIdempotencyStore()).mode(IdempotencyMode.LEASED).build();
        }

        @Bean
        IdempotentEndpoints idempotentEndpoints(ApplicationContext context, IdempotencyEngine engine) {
            return new IdempotentEndpoints(context, engine, List.of(new PathEndpoint("/legacy/payments/**",
                    Set.of("POST"), "legacy-payment", true, List.of())));
        }

        @Bean
        ProblemResponses problemResponses(IdempotencyEngine engine) {
            return new ProblemResponses(new JsonMapper(), new ProblemCatalogue(
                    URI.create("https://onceonly.dev/problems/"), 422, engine.retryAfter(), "Bearer"));
        }

        @Bean
        IdempotencyKeyFilter idempotencyKeyFilter(IdempotentEndpoints endpoints, IdempotencyEngine engine,
                ProblemResponses problems) {
            // The owner of every key: here one user; an application resolves it from its authentication.
            RequestOwners owners = new RequestOwners(request -> "alice", false);
            ResponseSnapshots snapshots = new ResponseSnapshots(List.of(), List.of(), 1 << 20);
            return new IdempotencyKeyFilter(endpoints, IdempotencyKeyFormat.DEFAULT, "Idempotency-Key", owners,
                    snapshots, new OperationResponses(problems, new JsonMapper(), engine.clock()), problems, 1 << 20,
                    8 << 20, List.of());
        }
    }

    @RestController
    static class Orders {

        final AtomicInteger created = new AtomicInteger();

        @PostMapping("/orders")
        @Idempotent("create-order")
        ResponseEntity<String> create(@RequestBody String order) {
            return ResponseEntity.status(201).contentType(MediaType.APPLICATION_JSON)
                    .body("{\"order\":" + created.incrementAndGet() + "}");
        }
    }
}
