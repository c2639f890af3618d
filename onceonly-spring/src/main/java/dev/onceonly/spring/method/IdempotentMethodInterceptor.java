package dev.onceonly.spring.method;

import dev.onceonly.Attempt;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotentResult;
import dev.onceonly.OutcomeUnknownException;
import java.lang.reflect.UndeclaredThrowableException;
import java.util.Optional;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.core.JacksonException;

/** Runs each call of an {@link IdempotentMethod} through the engine. */
final class IdempotentMethodInterceptor implements MethodInterceptor {

    /** Carries the method's own exception through the savepoint's callback, which may throw none but unchecked. */
    private static final class Failed extends RuntimeException {

        final Throwable exception;

        Failed(Throwable exception) {
            super(null, exception, false, false);
            this.exception = exception;
        }
    }

    private final ObjectProvider<IdempotentMethods> provider;
    private volatile @Nullable IdempotentMethods methods;

    IdempotentMethodInterceptor(ObjectProvider<IdempotentMethods> provider) {
        this.provider = provider;
    }

    private IdempotentMethods methods() {
        IdempotentMethods known = methods;
        if (known == null) {
            known = provider.getObject();
            methods = known;
        }
        return known;
    }

    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass = target != null ? AopUtils.getTargetClass(target) : invocation.getMethod()
                .getDeclaringClass();
        IdempotentMethodDefinition definition = methods().definition(invocation.getMethod(), targetClass);
        if (definition == null) {
            return invocation.proceed();
        }
        @Nullable Object[] arguments = invocation.getArguments();
        IdempotencyEngine engine = definition.engine();
        IdempotentResult<MethodOutcome> result;
        try {
            result = engine.execute(definition.scope(arguments), definition.fingerprint(arguments),
                    definition.codec(), attempt -> run(invocation, definition, attempt));
        } catch (OutcomeUnknownException unknown) {
            // The first call learns what every later one will: the outcome it stored (a result that could not be).
            throw storedException(definition, unknown);
        }
        return switch (result.value()) {
            case MethodOutcome.Returned returned -> returned.value();
            case MethodOutcome.Threw threw -> throw threw.exception();
        };
    }

    private static MethodOutcome run(MethodInvocation invocation, IdempotentMethodDefinition definition,
            Attempt attempt) throws Exception {
        // A clone per attempt: an invocation proceeds once, and the engine may try the work again after a lock
        // timeout.
        ProxyMethodInvocation call = (ProxyMethodInvocation) ((ProxyMethodInvocation) invocation).invocableClone();
        if (definition.attemptParameter() >= 0) {
            call.getArguments()[definition.attemptParameter()] = attempt;
        }
        // A final exception's writes roll back to a savepoint where the attempt holds a transaction.
        TransactionTemplate savepoint = attempt.isTransactional() ? definition.savepoint() : null;
        try {
            if (savepoint == null) {
                return proceed(call, definition);
            }
            return savepoint.execute(status -> {
                try {
                    MethodOutcome outcome = proceed(call, definition);
                    if (outcome instanceof MethodOutcome.Threw) {
                        status.setRollbackOnly();
                    }
                    return outcome;
                } catch (Throwable e) {
                    throw new Failed(e);
                }
            });
        } catch (Failed failed) {
            throw rethrowable(failed.exception);
        }
    }

    private static MethodOutcome proceed(ProxyMethodInvocation call, IdempotentMethodDefinition definition)
            throws Exception {
        MethodOutcomeCodec codec = definition.codec();
        Object value;
        try {
            value = call.proceed();
        } catch (Throwable e) {
            Optional<String> finalType = codec.finalType(e);
            if (finalType.isPresent()) {
                return codec.threw(e, finalType.get());
            }
            throw rethrowable(e);
        }
        try {
            return codec.returned(value);
        } catch (JacksonException e) {
            String detail = "The result of " + definition.where() + " cannot be stored as JSON and read back as its "
                    + "declared type (" + e.getClass().getSimpleName() + ")";
            // The engine decides by its mode: rolled back with the call's transaction, or (leased, whose effect
            // stays) stored as the key's final outcome, so that it never runs again.
            throw OutcomeUnknownException.unlessRolledBack(OutcomeNotReplayableException.notStorable(
                    detail + "; the call was rolled back"), detail, codec.notStorable(detail));
        }
    }

    private static Throwable storedException(IdempotentMethodDefinition definition, OutcomeUnknownException unknown) {
        try {
            return definition.codec().decode(unknown.outcome()) instanceof MethodOutcome.Threw threw
                    ? threw.exception() : unknown;
        } catch (IllegalStateException notOurs) {
            // An outcome the method stored itself, through an OutcomeUnknownException of its own
            return unknown;
        }
    }

    private static Exception rethrowable(Throwable e) {
        if (e instanceof Error error) {
            throw error;
        }
        return e instanceof Exception exception ? exception : new UndeclaredThrowableException(e);
    }
}
