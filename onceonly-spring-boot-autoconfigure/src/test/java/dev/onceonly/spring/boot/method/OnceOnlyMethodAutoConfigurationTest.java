package dev.onceonly.spring.boot.method;

import static dev.onceonly.spring.boot.StartupFailure.assertStartupFailure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.IdempotencyKeyReusedException;
import dev.onceonly.IdempotencyMode;
import dev.onceonly.RequestInProgressException;
import dev.onceonly.http.AuthenticationRequiredException;
import dev.onceonly.memory.InMemoryIdempotencyStore;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spring.boot.OnceOnlyAutoConfiguration;
import dev.onceonly.spring.method.IdempotencyKeyParam;
import dev.onceonly.spring.method.IdempotentMethod;
import dev.onceonly.spring.method.OutcomeNotReplayableException;
import dev.onceonly.spring.web.Idempotent;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.security.authentication.TestingAuthenticationToken;
import org.springframework.security.core.context.SecurityContextHolder;

/** The annotation on plain beans, with the in-memory store in leased mode; PostgreSQL's modes have their own IT. */
class OnceOnlyMethodAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(OnceOnlyAutoConfiguration.class,
                    OnceOnlyMethodAutoConfiguration.class))
            .withBean(IdempotencyStore.class, InMemoryIdempotencyStore::new)
            .withPropertyValues("onceonly.mode=leased", "onceonly.method.allow-anonymous=true");

    public record Payment(String account, long cents) {
    }

    public static class Declined extends Exception {

        public Declined(String message) {
            super(message);
        }
    }

    public static class Payments {

        final AtomicInteger runs = new AtomicInteger();
        volatile CountDownLatch hold = new CountDownLatch(0);

        @IdempotentMethod(value = "pay", finalExceptions = Declined.class)
        public List<Payment> pay(@IdempotencyKeyParam String key, Payment payment) throws Declined, InterruptedException {
            runs.incrementAndGet();
            hold.await(10, TimeUnit.SECONDS);
            if (payment.cents() > 10_000) {
                throw new Declined("over the limit");
            }
            return List.of(payment);
        }

        @IdempotentMethod(key = "#payment.account", waitTimeout = "50ms")
        public Optional<String> refund(Payment payment) {
            runs.incrementAndGet();
            try {
                hold.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return Optional.of(payment.account());
        }

        // Reached through the proxy, whose own fields are not the bean's.
        public int runs() {
            return runs.get();
        }

        public void hold(CountDownLatch latch) {
            hold = latch;
        }
    }

    @AfterEach
    void clearSecurity() {
        SecurityContextHolder.clearContext();
    }

    @Test
    void aReplayReturnsTheGenericResultAndAFinalCheckedExceptionIsThrownAgain() {
        runner.withBean(Payments.class).run(context -> {
            Payments payments = context.getBean(Payments.class);
            Payment payment = new Payment("acct-1", 500);

            List<Payment> first = payments.pay("k1", payment);
            List<Payment> replay = payments.pay("k1", payment);

            assertThat(replay).isEqualTo(first).first().isInstanceOf(Payment.class);
            assertThatThrownBy(() -> payments.pay("k1", new Payment("acct-1", 501)))
                    .isInstanceOf(IdempotencyKeyReusedException.class);
            Payment tooMuch = new Payment("acct-1", 20_000);
            assertThatThrownBy(() -> payments.pay("k2", tooMuch)).isInstanceOf(Declined.class);
            assertThatThrownBy(() -> payments.pay("k2", tooMuch)).isInstanceOf(Declined.class)
                    .hasMessage("over the limit");
            assertThat(payments.runs()).isEqualTo(2);
        });
    }

    @Test
    void theOwnerIsTheAuthenticatedPrincipalAndCallsWithoutOneShareTheAnonymousOwner() {
        runner.withBean(Payments.class).run(context -> {
            Payments payments = context.getBean(Payments.class);
            Payment payment = new Payment("acct-1", 500);
            payments.pay("k1", payment);
            payments.pay("k1", payment);
            assertThat(payments.runs()).isEqualTo(1);

            SecurityContextHolder.getContext().setAuthentication(new TestingAuthenticationToken("alice", "", "USER"));
            payments.pay("k1", payment);
            assertThat(payments.runs()).isEqualTo(2);
        });
    }

    /** One rule for owners, as for HTTP requests: anonymous calls share one owner only where that is allowed. */
    @Test
    void aCallWithoutAnOwnerOrAPrincipalIsRefusedUnlessAnonymousCallsAreAllowed() {
        runner.withBean(Payments.class).withPropertyValues("onceonly.method.allow-anonymous=false").run(context -> {
            Payments payments = context.getBean(Payments.class);
            Payment payment = new Payment("acct-1", 500);

            assertThatThrownBy(() -> payments.pay("k1", payment)).isInstanceOf(AuthenticationRequiredException.class)
                    .hasMessageContaining("Payments.pay declares no owner");
            assertThat(payments.runs()).isZero();

            SecurityContextHolder.getContext().setAuthentication(new TestingAuthenticationToken("alice", "", "USER"));
            payments.pay("k1", payment);
            assertThat(payments.runs()).isEqualTo(1);
        });
    }

    /** Without Spring Security no call has a principal: a method that declares no owner could never run. */
    @Test
    void aMethodWithoutAnOwnerStopsStartupWhereNoCallCanHaveAPrincipal() {
        runner.withBean(Payments.class).withPropertyValues("onceonly.method.allow-anonymous=false")
                .withClassLoader(new FilteredClassLoader(SecurityContextHolder.class)).run(context ->
                        assertStartupFailure(context).hasMessageContaining("Payments.pay").hasMessageContaining(
                                "without Spring Security no call has an authenticated principal"));
        runner.withBean(Payments.class).withClassLoader(new FilteredClassLoader(SecurityContextHolder.class))
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void aCallWhileTheFirstStillRunsWaitsItsWaitTimeoutThenIsRefused() {
        // The application's wait outlasts the first call: only the method's own 50 ms refuses the second.
        runner.withBean(Payments.class).withPropertyValues("onceonly.wait-timeout=1m").run(context -> {
            Payments payments = context.getBean(Payments.class);
            CountDownLatch release = new CountDownLatch(1);
            payments.hold(release);
            Payment payment = new Payment("acct-1", 500);
            CompletableFuture<Optional<String>> first = CompletableFuture.supplyAsync(() -> payments.refund(payment));
            try {
                org.awaitility.Awaitility.await().until(() -> payments.runs() == 1);
                assertThatThrownBy(() -> payments.refund(payment)).isInstanceOf(RequestInProgressException.class);
            } finally {
                release.countDown();
            }
            assertThat(first.get()).contains("acct-1");
            assertThat(payments.refund(payment)).contains("acct-1");
            assertThat(payments.runs()).isEqualTo(1);
        });
    }

    /** A result that Jackson cannot write: its one property fails. */
    public record Unwritable(String id) {

        public String getBroken() {
            throw new IllegalStateException("not serializable");
        }
    }

    public static class Exports {

        final AtomicInteger runs = new AtomicInteger();

        @IdempotentMethod("export")
        public Unwritable export(@IdempotencyKeyParam String key) {
            runs.incrementAndGet();
            return new Unwritable(key);
        }

        public int runs() {
            return runs.get();
        }
    }

    public abstract static class Handler<R> {

        @IdempotentMethod
        public R handle(@IdempotencyKeyParam String key) {
            return create(key);
        }

        protected abstract R create(String key);
    }

    public static class PaymentHandler extends Handler<Payment> {

        @Override
        protected Payment create(String key) {
            return new Payment(key, 1);
        }
    }

    @Test
    void aLeasedResultThatCannotBeStoredEndsTheKeyWithoutRunningAgain() {
        runner.withBean(Exports.class).run(context -> {
            Exports exports = context.getBean(Exports.class);

            for (int call = 0; call < 2; call++) {
                assertThatThrownBy(() -> exports.export("k1")).isInstanceOf(OutcomeNotReplayableException.class)
                        .hasMessageContaining("cannot be stored as JSON")
                        .extracting(e -> ((OutcomeNotReplayableException) e).problemType())
                        .isEqualTo("result-not-storable");
            }
            assertThat(exports.runs()).isEqualTo(1);
        });
    }

    @Test
    void aGenericMethodIsReplayedAsTheBeanClassesResultType() {
        runner.withBean(PaymentHandler.class).run(context -> {
            PaymentHandler handler = context.getBean(PaymentHandler.class);
            handler.handle("k1");

            Object replayed = handler.handle("k1");

            assertThat(replayed).isEqualTo(new Payment("k1", 1));
        });
    }

    public static class NoKey {
        @IdempotentMethod
        public String run(String input) {
            return input;
        }
    }

    public static class TwoKeys {
        @IdempotentMethod(key = "#input")
        public String run(@IdempotencyKeyParam String key, String input) {
            return input;
        }
    }

    public static class BadExpression {
        @IdempotentMethod(key = "#input.")
        public String run(String input) {
            return input;
        }
    }

    public static class BadDuration {
        @IdempotentMethod(key = "#input", retention = "forever")
        public String run(String input) {
            return input;
        }
    }

    public static class Asynchronous {
        @IdempotentMethod(key = "#input")
        public CompletableFuture<String> run(String input) {
            return CompletableFuture.completedFuture(input);
        }
    }

    public static class FinalMethod {
        @IdempotentMethod(key = "#input")
        public final String run(String input) {
            return input;
        }
    }

    public static class OwnFinalException {
        @IdempotentMethod(key = "#input", finalExceptions = IdempotencyKeyReusedException.class)
        public String run(String input) {
            return input;
        }
    }

    public static class BothAnnotations {
        @Idempotent
        @IdempotentMethod(key = "#input")
        public String run(String input) {
            return input;
        }
    }

    public static class TransactionalWithoutRunner {
        @IdempotentMethod(key = "#input", mode = IdempotencyMode.TRANSACTIONAL)
        public String run(String input) {
            return input;
        }
    }

    public static class Reactive {
        @IdempotentMethod(key = "#input")
        public reactor.core.publisher.Mono<String> run(String input) {
            return reactor.core.publisher.Mono.just(input);
        }
    }

    public static class Untyped {
        @IdempotentMethod(key = "#input")
        public Object run(String input) {
            return input;
        }
    }

    public static class Asynchronously {
        @org.springframework.scheduling.annotation.Async
        @IdempotentMethod(key = "#input")
        public void run(String input) {
        }
    }

    public static class Typo {
        @IdempotentMethod(key = "#input", excludedFields = "/inptu/at")
        public String run(String input) {
            return input;
        }
    }

    public static class NotRebuildable extends RuntimeException {
        public NotRebuildable(int code) {
            super("code " + code);
        }
    }

    public static class FinalWithoutConstructor {
        @IdempotentMethod(key = "#input", finalExceptions = NotRebuildable.class)
        public String run(String input) {
            return input;
        }
    }

    public static class DatabaseFailureAsFinal {
        @IdempotentMethod(key = "#input", finalExceptions = org.springframework.dao.DuplicateKeyException.class)
        public String run(String input) {
            return input;
        }
    }

    public static class Overloads {
        @IdempotentMethod(key = "#input")
        public String run(String input) {
            return input;
        }

        @IdempotentMethod(key = "#input")
        public String run(String input, int times) {
            return input.repeat(times);
        }
    }

    public static class OwnTransaction {
        @org.springframework.transaction.annotation.Transactional(propagation =
                org.springframework.transaction.annotation.Propagation.REQUIRES_NEW)
        @IdempotentMethod(key = "#input", mode = IdempotencyMode.JOINED)
        public String run(String input) {
            return input;
        }
    }

    @Test
    void aTransactionOfTheMethodsOwnStopsStartupWhereTheClaimIsInATransaction() {
        runner.withBean(dev.onceonly.TransactionRunner.class, dev.onceonly.spring.boot.PassThroughTransactionRunner::new)
                .withBean(OwnTransaction.class)
                .run(context -> assertStartupFailure(context).hasMessageContaining("OwnTransaction.run")
                        .hasMessageContaining("propagation"));
    }

    @Test
    void aBadAnnotationStopsStartupNamingTheMethodAndTheRule() {
        assertRefused(Reactive.class, "Reactive.run", "returns Mono");
        assertRefused(Untyped.class, "Untyped.run", "returns Object");
        assertRefused(Asynchronously.class, "Asynchronously.run", "@Async");
        assertRefused(Typo.class, "Typo.run excludedFields", "names no parameter");
        assertRefused(FinalWithoutConstructor.class, "FinalWithoutConstructor.run finalExceptions",
                "(String message)");
        assertRefused(DatabaseFailureAsFinal.class, "DatabaseFailureAsFinal.run finalExceptions",
                "database failure");
        assertRefused(Overloads.class, "Overloads.run", "also the operation of");
        assertRefused(NoKey.class, "NoKey.run", "names no key");
        assertRefused(TwoKeys.class, "TwoKeys.run", "both key");
        assertRefused(BadExpression.class, "BadExpression.run key", "not a SpEL expression");
        assertRefused(BadDuration.class, "BadDuration.run retention", "not a duration");
        assertRefused(Asynchronous.class, "Asynchronous.run", "returns CompletableFuture");
        assertRefused(FinalMethod.class, "FinalMethod.run", "private, static or final");
        assertRefused(OwnFinalException.class, "OwnFinalException.run finalExceptions", "OnceOnly's own");
        assertRefused(BothAnnotations.class, "BothAnnotations.run", "@IdempotentMethod");
        assertRefused(TransactionalWithoutRunner.class, "TransactionalWithoutRunner.run mode", "TransactionRunner");
    }

    private void assertRefused(Class<?> bean, String where, String rule) {
        runner.withBean(bean).run(context -> assertStartupFailure(context).hasMessageContaining(where)
                .hasMessageContaining(rule));
    }
}
