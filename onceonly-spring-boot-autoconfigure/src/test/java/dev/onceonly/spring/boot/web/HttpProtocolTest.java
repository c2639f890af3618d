package dev.onceonly.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;

import dev.onceonly.Attempt;
import dev.onceonly.memory.InMemoryIdempotencyStore;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spring.boot.OnceOnlyAutoConfiguration;
import dev.onceonly.spring.web.AcceptedRequest;
import dev.onceonly.spring.web.IdempotencyOwnerResolver;
import dev.onceonly.spring.web.Idempotent;
import dev.onceonly.spring.web.ResponseSnapshots;
import dev.onceonly.spring.web.servlet.IdempotencyKeyFilter;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableWebApplicationContext;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.MethodParameter;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseEntity;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.support.WebDataBinderFactory;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.context.request.async.DeferredResult;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.method.support.ModelAndViewContainer;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody;

/**
 * The protocol through the filter and Spring MVC on the in-memory store (leased mode): which requests are the
 * same, which methods and handlers an endpoint covers. Issue 8, "Protocol and fingerprint".
 */
class HttpProtocolTest {

    private static final String PROBLEMS = "https://onceonly.dev/problems/";

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(WebMvcAutoConfiguration.class, OnceOnlyAutoConfiguration.class,
                    OnceOnlyWebMvcAutoConfiguration.class))
            .withBean(IdempotencyStore.class, InMemoryIdempotencyStore::new)
            .withBean(IdempotencyOwnerResolver.class, () -> request -> "alice")
            .withPropertyValues(
                    "onceonly.mode=leased",
                    "onceonly.replay-cache.time-to-live=0s",
                    "onceonly.http.endpoints[0].path=/api/legacy/payments/**",
                    "onceonly.http.endpoints[0].fingerprint-parameters=amount",
                    "onceonly.http.endpoints[1].path=/api/legacy/async",
                    "onceonly.http.endpoints[2].path=/api/legacy/charges")
            .withUserConfiguration(Handlers.class, DryRunResolver.class);

    @Test
    void wildcardRouteRequestsToTwoPathsAreTwoRequests() {
        run(http -> {
            MockHttpServletResponse replay = http.assertRetryReplayedAndOtherRefused(
                    post("/api/legacy/payments/inv-1"), post("/api/legacy/payments/inv-1"),
                    post("/api/legacy/payments/inv-2"));

            assertThat(replay.getContentAsString()).isEqualTo("paid /api/legacy/payments/inv-1");
        });
    }

    @Test
    void annotatedWildcardRouteRequestsToTwoPathsAreTwoRequests() {
        run(http -> {
            http.assertRetryReplayedAndOtherRefused(post("/api/refunds/inv-1"), post("/api/refunds/inv-1"),
                    post("/api/refunds/inv-2"));

            assertThat(http.handlers().refunds).hasValue(1);
        });
    }

    @Test
    void percentEncodedSpellingOfTheSamePathIsTheSameRequest() {
        run(http -> http.assertRetryReplayedAndOtherRefused(post(URI.create("/api/refunds/inv-1")),
                post(URI.create("/api/refunds/inv%2D1")), post(URI.create("/api/refunds/inv%2F1"))));
    }

    @Test
    void cacheBusterOnARetryIsReplayedWhileAConfiguredParameterThatDiffersIsRefused() {
        run(http -> http.assertRetryReplayedAndOtherRefused(post("/api/legacy/payments/inv-1?amount=5&_=1"),
                post("/api/legacy/payments/inv-1?_=2&amount=5"), post("/api/legacy/payments/inv-1?amount=6&_=3")));
    }

    // Issue 8 (hardening)
    @Test
    void configuredEndpointWithoutNamedParametersHasEveryQueryParameterTakePart() {
        run(http -> http.assertRetryReplayedAndOtherRefused(post("/api/legacy/charges?amount=5"),
                post("/api/legacy/charges?amount=5"), post("/api/legacy/charges?amount=6")));
    }

    // Issue 8 (hardening)
    @Test
    void handlerThatReadsTheServletRequestHasEveryQueryParameterTakePart() {
        run(http -> http.assertRetryReplayedAndOtherRefused(post("/api/refunds/inv-1?amount=5"),
                post("/api/refunds/inv-1?amount=5"), post("/api/refunds/inv-1?amount=6")));
    }

    // Issue 8 (hardening)
    // issue 8 (review): a parameter read by an application's argument resolver took no part, so the real
    // rebooking's retry was answered with the dry run's result
    @Test
    void parameterReadByAnApplicationsArgumentResolverTakesPart() {
        run(http -> http.assertRetryReplayedAndOtherRefused(post("/api/rebookings?dryRun=true"),
                post("/api/rebookings?dryRun=true"), post("/api/rebookings?dryRun=false")));
    }

    @Test
    void namedParametersAloneTakePartWhereTheHandlerReadsTheRequest() {
        run(http -> http.assertRetryReplayedAndOtherRefused(post("/api/credits?amount=5&_=1"),
                post("/api/credits?amount=5&_=2"), post("/api/credits?amount=6&_=3")));
    }

    @Test
    void handlerThatReadsTheWebRequestHasEveryQueryParameterTakePart() {
        run(http -> http.assertRetryReplayedAndOtherRefused(post("/api/adjustments?amount=5"),
                post("/api/adjustments?amount=5"), post("/api/adjustments?amount=6")));
    }

    @Test
    void queryParameterTheHandlerBindsTakesPartAndACacheBusterDoesNot() {
        run(http -> {
            http.assertRetryReplayedAndOtherRefused(post("/api/transfers?currency=EUR&_=1"),
                    post("/api/transfers?currency=EUR&_=2"), post("/api/transfers?currency=USD&_=3"));

            assertThat(http.handlers().transfers).hasValue(1);
        });
    }

    @Test
    void handlerGetsItsAttemptWithADownstreamKeyAndTheAttemptDoesNotMakeQueryParametersTakePart() {
        run(http -> {
            MockHttpServletResponse replay = http.assertRetryReplayedAndOtherRefused(
                    post("/api/shipments?carrier=dhl&_=1"), post("/api/shipments?carrier=dhl&_=2"),
                    post("/api/shipments?carrier=ups&_=3"));

            assertThat(replay.getContentAsString()).matches("shipped by dhl as [0-9a-f]{32}, attempt 1");
        });
    }

    @Test
    void formFieldsAreTheBodyAndTakePartWhileACacheBusterDoesNot() {
        run(http -> {
            MockHttpServletResponse replay = http.assertRetryReplayedAndOtherRefused(form("/api/transfers?_=1", "EUR"),
                    form("/api/transfers?_=2", "EUR"), form("/api/transfers?_=3", "USD"));

            assertThat(replay.getContentAsString()).isEqualTo("transferred EUR");
        });
    }

    @Test
    void declaredCharsetIsPartOfTheFingerprint() {
        byte[] body = "caf\u00e9".getBytes(StandardCharsets.ISO_8859_1);
        run(http -> http.assertRetryReplayedAndOtherRefused(
                post("/api/notes").contentType("text/plain;charset=ISO-8859-1").content(body),
                post("/api/notes").contentType("text/plain;charset=latin1").content(body),
                post("/api/notes").contentType("text/plain;charset=windows-1252").content(body)));
    }

    @Test
    void jsonInADeclaredCharsetIsDecodedByItBeforeCanonicalisation() {
        Charset latin1 = StandardCharsets.ISO_8859_1;
        run(http -> http.assertRetryReplayedAndOtherRefused(
                post("/api/notes").contentType("application/json;charset=latin1")
                        .content("{\"note\": \"caf\u00e9\", \"n\": 1}".getBytes(latin1)),
                post("/api/notes").contentType("application/json;charset=ISO-8859-1")
                        .content("{\"n\":1.0,\"note\":\"caf\u00e9\"}".getBytes(latin1)),
                post("/api/notes").contentType("application/json;charset=ISO-8859-1")
                        .content("{\"n\":1,\"note\":\"cafe\"}".getBytes(latin1))));
    }

    @Test
    void unknownCharsetIsRefusedWith415() {
        run(http -> {
            MockHttpServletResponse response = http.send(post("/api/notes")
                    .contentType("application/json;charset=x-no-such-charset").content("{}"), newKey());

            assertProblem(response, 415, "unsupported-charset");
            assertThat(http.handlers().notes).hasValue(0);
        });
    }

    @Test
    void contentEncodedBodyIsRefusedWith415InsteadOfBeingFingerprintedCompressed() {
        run(http -> {
            MockHttpServletResponse response = http.send(post("/api/notes").contentType("application/json")
                    .header(HttpHeaders.CONTENT_ENCODING, "gzip").content(gzip("{\"note\":\"x\"}")), newKey());

            assertProblem(response, 415, "unsupported-content-encoding");
            assertThat(response.getHeader(HttpHeaders.ACCEPT_ENCODING)).isEqualTo("identity");
            assertThat(http.handlers().notes).hasValue(0);
        });
    }

    @Test
    void representationHeadersAreReplayedWithTheBody() {
        run(http -> {
            MockHttpServletResponse replay = http.assertReplayed(newKey(), post("/api/exports"), post("/api/exports"));

            assertThat(replay.getHeader(HttpHeaders.CONTENT_ENCODING)).isEqualTo("gzip");
            assertThat(replay.getHeader(HttpHeaders.CONTENT_DISPOSITION))
                    .isEqualTo("attachment; filename=\"orders.csv.gz\"");
            assertThat(replay.getHeader(HttpHeaders.VARY)).isEqualTo("Accept-Encoding");
        });
    }

    @Test
    void mappingWithoutMethodsIsIdempotentForPostButNeverForGet() {
        run(http -> {
            String key = newKey();
            for (int run = 1; run <= 2; run++) {
                MockHttpServletResponse response = http.send(get("/api/any"), key);

                assertThat(response.getHeader(ResponseSnapshots.REPLAYED_HEADER)).isNull();
                assertThat(response.getContentAsString()).isEqualTo("GET " + run);
            }

            MockHttpServletResponse replay = http.assertReplayed(key, post("/api/any"), post("/api/any"));

            assertThat(replay.getContentAsString()).isEqualTo("POST 3");
            assertThat(http.handlers().any).hasValue(3);
        });
    }

    @ParameterizedTest
    @ValueSource(classes = {StreamingHandler.class, ObjectHandler.class, DeferredHandler.class})
    void asynchronousHandlerStopsStartupNamingTheMethod(Class<?> handler) {
        runner.withUserConfiguration(handler).run(context -> assertThat(context).hasFailed().getFailure()
                .extracting(NestedExceptionUtils::getMostSpecificCause)
                .asInstanceOf(InstanceOfAssertFactories.THROWABLE)
                .hasMessageContaining(handler.getSimpleName() + ".create")
                .hasMessageContaining("answer synchronously"));
    }

    static Stream<Arguments> misconfiguredAsynchronousEndpoints() {
        return Stream.of(
                Arguments.of(UnnamedAcceptingHandler.class, "Name the operation"),
                Arguments.of(KeylessAcceptingHandler.class, "Leave keyRequired at true"),
                Arguments.of(RetainingAcceptingHandler.class, "would be ignored"),
                // It would run its effect with no idempotency at all.
                Arguments.of(AcceptingHandlerWithoutAcceptedRequest.class, "Declare an AcceptedRequest parameter"),
                Arguments.of(SynchronousHandlerWithAcceptedRequest.class, "Set asynchronous = true"),
                // No db-scheduler auto-configuration here: nothing would ever run what it accepts.
                Arguments.of(AcceptingHandler.class, "asynchronous operations are not set up"));
    }

    @ParameterizedTest
    @MethodSource("misconfiguredAsynchronousEndpoints")
    void misconfiguredAsynchronousEndpointStopsStartupSayingWhatToDo(Class<?> handler, String message) {
        runner.withUserConfiguration(handler).run(context -> assertThat(context).hasFailed().getFailure()
                .extracting(NestedExceptionUtils::getMostSpecificCause)
                .asInstanceOf(InstanceOfAssertFactories.THROWABLE)
                .hasMessageContaining("@Idempotent on " + handler.getSimpleName() + ".create")
                .hasMessageContaining(message));
    }

    @Test
    void attemptThatWentAsynchronousIsNeverRunAgainInLeasedMode() {
        run(http -> {
            String key = newKey();

            MockHttpServletResponse first = http.send(post("/api/legacy/async"), key);
            MockHttpServletResponse retry = http.send(post("/api/legacy/async"), key);

            assertProblem(first, 500, "asynchronous-handler");
            assertThat(retry.getStatus()).isEqualTo(500);
            assertThat(retry.getHeader(ResponseSnapshots.REPLAYED_HEADER)).isEqualTo("true");
            assertThat(http.handlers().async).hasValue(1);
        });
    }

    private void run(HttpTest test) {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            test.run(new Http(context));
        });
    }

    @FunctionalInterface
    private interface HttpTest {
        void run(Http http) throws Exception;
    }

    private record Http(AssertableWebApplicationContext context) {

        MockHttpServletResponse send(MockHttpServletRequestBuilder request, String key) throws Exception {
            Filter filter = context.getBean(IdempotencyKeyFilter.class);
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).addFilters(filter).build();
            return mvc.perform(request.header("Idempotency-Key", key)).andReturn().getResponse();
        }

        /** Sends both with {@code key}: the retry must replay the first response. Returns the replay. */
        MockHttpServletResponse assertReplayed(String key, MockHttpServletRequestBuilder first,
                MockHttpServletRequestBuilder retry) throws Exception {
            MockHttpServletResponse firstResponse = send(first, key);
            MockHttpServletResponse replay = send(retry, key);
            assertThat(firstResponse.getStatus()).isLessThan(300);
            assertThat(replay.getStatus()).isEqualTo(firstResponse.getStatus());
            assertThat(replay.getHeader(ResponseSnapshots.REPLAYED_HEADER)).isEqualTo("true");
            assertThat(replay.getContentAsByteArray()).isEqualTo(firstResponse.getContentAsByteArray());
            return replay;
        }

        /**
         * Sends three requests with one key: the retry must replay the first, the other request be refused as a
         * reused key. Returns the replay.
         */
        MockHttpServletResponse assertRetryReplayedAndOtherRefused(MockHttpServletRequestBuilder first,
                MockHttpServletRequestBuilder retry, MockHttpServletRequestBuilder other) throws Exception {
            String key = newKey();
            MockHttpServletResponse replay = assertReplayed(key, first, retry);
            assertProblem(send(other, key), 422, "idempotency-key-reused");
            return replay;
        }

        Handlers handlers() {
            return context.getBean(Handlers.class);
        }
    }

    private static MockHttpServletRequestBuilder form(String uri, String currency) {
        return post(uri).contentType("application/x-www-form-urlencoded").content("currency=" + currency);
    }

    private static void assertProblem(MockHttpServletResponse response, int status, String type) throws Exception {
        assertThat(response.getStatus()).isEqualTo(status);
        assertThat(response.getContentType()).isEqualTo("application/problem+json");
        assertThat(response.getContentAsString()).contains("\"type\":\"" + PROBLEMS + type + "\"");
    }

    private static String newKey() {
        return UUID.randomUUID().toString();
    }

    private static byte[] gzip(String text) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (GZIPOutputStream out = new GZIPOutputStream(bytes)) {
            out.write(text.getBytes(StandardCharsets.UTF_8));
        }
        return bytes.toByteArray();
    }

    record DryRun(boolean value) {
    }

    /** An application's argument resolver: what it reads of the request cannot be seen at startup. */
    @Configuration(proxyBeanMethods = false)
    static class DryRunResolver implements WebMvcConfigurer {
        @Override
        public void addArgumentResolvers(List<HandlerMethodArgumentResolver> resolvers) {
            resolvers.add(new HandlerMethodArgumentResolver() {
                @Override
                public boolean supportsParameter(MethodParameter parameter) {
                    return parameter.getParameterType() == DryRun.class;
                }

                @Override
                public Object resolveArgument(MethodParameter parameter, @Nullable ModelAndViewContainer mav,
                        NativeWebRequest request, @Nullable WebDataBinderFactory binders) {
                    return new DryRun(Boolean.parseBoolean(request.getParameter("dryRun")));
                }
            });
        }
    }

    @RestController
    static class Handlers {
        final AtomicInteger refunds = new AtomicInteger();
        final AtomicInteger transfers = new AtomicInteger();
        final AtomicInteger notes = new AtomicInteger();
        final AtomicInteger any = new AtomicInteger();
        final AtomicInteger async = new AtomicInteger();

        /** Made idempotent by configuration only. */
        @PostMapping("/api/legacy/payments/**")
        String pay(HttpServletRequest request) {
            return "paid " + request.getRequestURI();
        }

        /** Made idempotent by configuration only, without naming the parameters it reads. */
        @PostMapping("/api/legacy/charges")
        String charge(HttpServletRequest request) {
            return "charged " + request.getParameter("amount");
        }

        @PostMapping("/api/adjustments")
        @Idempotent
        String adjust(WebRequest request) {
            return "adjusted " + request.getParameter("amount");
        }

        @PostMapping("/api/credits")
        @Idempotent(fingerprintParameters = "amount")
        String credit(HttpServletRequest request) {
            return "credited " + request.getParameter("amount");
        }

        /** {@link DryRun} comes from an application's resolver, which reads a query parameter. */
        @PostMapping("/api/rebookings")
        @Idempotent
        String rebook(DryRun dryRun) {
            return dryRun.value() ? "would rebook" : "rebooked";
        }

        @PostMapping("/api/refunds/**")
        @Idempotent
        String refund(HttpServletRequest request) {
            return "refunded " + request.getRequestURI() + " " + refunds.incrementAndGet();
        }

        @PostMapping("/api/transfers")
        @Idempotent
        String transfer(@RequestParam String currency) {
            transfers.incrementAndGet();
            return "transferred " + currency;
        }

        @PostMapping("/api/shipments")
        @Idempotent
        String ship(@RequestParam String carrier, Attempt attempt) {
            return "shipped by " + carrier + " as " + attempt.downstreamKey("ship") + ", attempt " + attempt.number();
        }

        @PostMapping("/api/notes")
        @Idempotent
        String note(@RequestBody byte[] body) {
            return "noted " + body.length + " bytes, " + notes.incrementAndGet();
        }

        @PostMapping("/api/exports")
        @Idempotent
        ResponseEntity<byte[]> export() throws IOException {
            return ResponseEntity.ok().header(HttpHeaders.CONTENT_ENCODING, "gzip")
                    .header(HttpHeaders.CONTENT_DISPOSITION, "attachment; filename=\"orders.csv.gz\"")
                    .header(HttpHeaders.VARY, "Accept-Encoding").header(HttpHeaders.CONTENT_TYPE, "text/csv")
                    .body(gzip("id\n1\n"));
        }

        @RequestMapping("/api/any")
        @Idempotent
        String any(HttpServletRequest request) {
            return request.getMethod() + " " + any.incrementAndGet();
        }

        /** Made idempotent by configuration, so its {@code Object} return type is not seen at startup. */
        @PostMapping("/api/legacy/async")
        Object async() {
            async.incrementAndGet();
            return new DeferredResult<String>();
        }
    }

    @RestController
    static class StreamingHandler {
        @PostMapping("/streaming")
        @Idempotent
        ResponseEntity<StreamingResponseBody> create() {
            return ResponseEntity.ok(out -> out.write('x'));
        }
    }

    @RestController
    static class UnnamedAcceptingHandler {
        @PostMapping("/accepting")
        @Idempotent(asynchronous = true)
        ResponseEntity<byte[]> create(AcceptedRequest request) {
            return request.accept("payload", "/operations/{key}");
        }
    }

    @RestController
    static class KeylessAcceptingHandler {
        @PostMapping("/accepting")
        @Idempotent(value = "settle", asynchronous = true, keyRequired = false)
        ResponseEntity<byte[]> create(AcceptedRequest request) {
            return request.accept("payload", "/operations/{key}");
        }
    }

    @RestController
    static class RetainingAcceptingHandler {
        @PostMapping("/accepting")
        @Idempotent(value = "settle", asynchronous = true, retention = "1h")
        ResponseEntity<byte[]> create(AcceptedRequest request) {
            return request.accept("payload", "/operations/{key}");
        }
    }

    @RestController
    static class AcceptingHandlerWithoutAcceptedRequest {
        @PostMapping("/accepting")
        @Idempotent(value = "settle", asynchronous = true)
        ResponseEntity<byte[]> create() {
            return ResponseEntity.ok(new byte[0]);
        }
    }

    @RestController
    static class SynchronousHandlerWithAcceptedRequest {
        @PostMapping("/accepting")
        @Idempotent("settle")
        ResponseEntity<byte[]> create(AcceptedRequest request) {
            return request.accept("payload", "/operations/{key}");
        }
    }

    @RestController
    static class AcceptingHandler {
        @PostMapping("/accepting")
        @Idempotent(value = "settle", asynchronous = true)
        ResponseEntity<byte[]> create(AcceptedRequest request) {
            return request.accept("payload", "/operations/{key}");
        }
    }

    @RestController
    static class ObjectHandler {
        @PostMapping("/object")
        @Idempotent
        Object create() {
            return "created";
        }
    }

    @RestController
    static class DeferredHandler {
        @PostMapping("/deferred")
        @Idempotent
        DeferredResult<String> create() {
            return new DeferredResult<>();
        }
    }
}
