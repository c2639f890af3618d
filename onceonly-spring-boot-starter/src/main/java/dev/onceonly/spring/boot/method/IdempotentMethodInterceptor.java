package dev.onceonly.spring.boot.method;

import dev.onceonly.Attempt;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotentResult;
import java.lang.reflect.UndeclaredThrowableException;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.transaction.support.TransactionTemplate;

/** Runs each call of an {@link IdempotentMethod} through the engine. */
final class IdempotentMethodInterceptor implements MethodInterceptor {

    /** Carries the method's own exception through the savepoint's callback, which may throw none but unchecked. */
    private static final class Failed extends RuntimeException {

        Failed(Throwable exception) {
            super(null, exception, false, false);
        }
    }

    private final ObjectProvider<IdempotentMethods> methods;

    IdempotentMethodInterceptor(ObjectProvider<IdempotentMethods> methods) {
        this.methods = methods;
    }

    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass = target != null ? AopUtils.getTargetClass(target) : invocation.getMethod()
                .getDeclaringClass();
        IdempotentMethodDefinition definition = methods.getObject().definition(invocation.getMethod(), targetClass);
        if (definition == null) {
            return invocation.proceed();
        }
        Object[] arguments = invocation.getArguments();
        IdempotencyEngine engine = definition.engine();
        TransactionTemplate savepoint = definition.savepoint(engine);
        IdempotentResult<MethodOutcome> result = engine.execute(definition.scope(arguments),
                definition.fingerprint(arguments), definition.codec(),
                attempt -> run(invocation, definition, attempt, savepoint));
        return switch (result.value()) {
            case MethodOutcome.Returned returned -> returned.value();
            case MethodOutcome.Threw threw -> throw threw.exception();
        };
    }

    private static MethodOutcome run(MethodInvocation invocation, IdempotentMethodDefinition definition,
            Attempt attempt, @Nullable TransactionTemplate savepoint) throws Exception {
        // A clone per attempt: an invocation proceeds once, and the engine may try the work again after a lock
        // timeout.
        ProxyMethodInvocation call = (ProxyMethodInvocation) ((ProxyMethodInvocation) invocation).invocableClone();
        if (definition.attemptParameter() >= 0) {
            call.getArguments()[definition.attemptParameter()] = attempt;
        }
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
            throw rethrowable(failed.getCause());
        }
    }

    private static MethodOutcome proceed(ProxyMethodInvocation call, IdempotentMethodDefinition definition)
            throws Exception {
        try {
            return new MethodOutcome.Returned(call.proceed());
        } catch (Throwable e) {
            if (definition.codec().isFinal(e)) {
                return new MethodOutcome.Threw(e);
            }
            throw rethrowable(e);
        }
    }

    private static Exception rethrowable(Throwable e) {
        if (e instanceof Error error) {
            throw error;
        }
        return e instanceof Exception exception ? exception : new UndeclaredThrowableException(e);
    }
}
