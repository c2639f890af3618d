package dev.onceonly.spring.boot.method;

import dev.onceonly.Attempt;
import dev.onceonly.CanonicalJson;
import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyConfigurationException;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyEngineBuilder;
import dev.onceonly.IdempotencyException;
import dev.onceonly.IdempotencyMode;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.OutcomePolicy;
import dev.onceonly.TransactionRunner;
import dev.onceonly.spring.boot.AnnotatedTimings;
import dev.onceonly.spring.boot.web.Idempotent;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.MethodParameter;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * One {@link IdempotentMethod}, checked and set up once: where its key and owner come from, which arguments its
 * fingerprint covers, its codec and its engines. Thread-safe.
 */
final class IdempotentMethodDefinition {

    private static final SpelExpressionParser PARSER = new SpelExpressionParser();
    private static final ParameterNameDiscoverer NAMES = new DefaultParameterNameDiscoverer();
    private static final String REACTIVE_PUBLISHER = "org.reactivestreams.Publisher";

    /** Where a call's key or owner comes from: an argument or an expression over them, or nowhere. */
    private record Source(int parameter, @Nullable Expression expression) {

        static final Source NONE = new Source(-1, null);

        boolean declared() {
            return parameter >= 0 || expression != null;
        }
    }

    private final Method method;
    private final String operation;
    private final Source key;
    private final Source owner;
    private final int attemptParameter;
    private final String[] names;
    private final boolean[] fingerprinted;
    private final CanonicalJson canonicalJson;
    private final JsonMapper json;
    private final MethodOutcomeCodec codec;
    private final IdempotencyEngine defaultEngine;
    private final @Nullable IdempotencyEngine joinedEngine;
    private final @Nullable TransactionRunner runner;
    /** Rolls a final exception's writes back to a savepoint, so that its outcome commits without them. */
    private final @Nullable TransactionTemplate savepoint;
    private final BeanFactory beans;

    private IdempotentMethodDefinition(Method method, String operation, Source key, Source owner, int attempt,
            String[] names, boolean[] fingerprinted, CanonicalJson canonicalJson, JsonMapper json,
            MethodOutcomeCodec codec, IdempotencyEngine defaultEngine,
            @Nullable IdempotencyEngine joinedEngine, @Nullable TransactionRunner runner,
            @Nullable TransactionTemplate savepoint, BeanFactory beans) {
        this.method = method;
        this.operation = operation;
        this.key = key;
        this.owner = owner;
        this.attemptParameter = attempt;
        this.names = names;
        this.fingerprinted = fingerprinted;
        this.canonicalJson = canonicalJson;
        this.json = json;
        this.codec = codec;
        this.defaultEngine = defaultEngine;
        this.joinedEngine = joinedEngine;
        this.runner = runner;
        this.savepoint = savepoint;
        this.beans = beans;
    }

    /**
     * @param method the annotated method, of the bean's own class
     * @param engine the application's engine, whose settings the method's override
     * @param runner the application's transaction runner, if it has one
     * @param transactions the transaction manager the runner uses, for savepoints
     * @throws IdempotencyConfigurationException naming the method and the attribute that is wrong
     */
    static IdempotentMethodDefinition of(Method method, IdempotentMethod annotation, IdempotencyEngine engine,
            @Nullable TransactionRunner runner, @Nullable PlatformTransactionManager transactions, JsonMapper json,
            BeanFactory beans) {
        String where = "@IdempotentMethod on " + method.getDeclaringClass().getSimpleName() + "." + method.getName();
        int modifiers = method.getModifiers();
        if (Modifier.isPrivate(modifiers) || Modifier.isStatic(modifiers) || Modifier.isFinal(modifiers)) {
            throw IdempotencyConfigurationException.of(where, "the method is private, static or final, so no proxy "
                    + "can intercept it and the annotation would have no effect", "Make it a public method");
        }
        if (AnnotatedElementUtils.hasAnnotation(method, Idempotent.class)) {
            throw IdempotencyConfigurationException.of(where, "the method also carries @Idempotent", "Keep one: "
                    + "@Idempotent on controller methods, @IdempotentMethod on other beans' methods");
        }
        requireSynchronous(where, method);
        String operation = annotation.value().isBlank()
                ? method.getDeclaringClass().getSimpleName() + "." + method.getName() : annotation.value();
        if (operation.length() > IdempotencyScope.MAX_NAME_LENGTH) {
            throw IdempotencyConfigurationException.of(where, "the operation name is longer than "
                    + IdempotencyScope.MAX_NAME_LENGTH + " characters");
        }
        String[] names = parameterNames(method);
        Source key = source(where, "key", method, IdempotencyKey.class, annotation.key());
        if (!key.declared()) {
            throw IdempotencyConfigurationException.of(where, "it names no key", "Annotate the parameter that holds "
                    + "the key with @IdempotencyKey, or give key = \"#command.id\"");
        }
        Source owner = source(where, "owner", method, IdempotencyOwner.class, annotation.owner());
        int attempt = -1;
        boolean[] fingerprinted = new boolean[names.length];
        List<String> excluded = new ArrayList<>(Arrays.asList(annotation.excludedFields()));
        for (int i = 0; i < names.length; i++) {
            if (method.getParameterTypes()[i] == Attempt.class) {
                attempt = i;
            }
            fingerprinted[i] = i != key.parameter() && i != owner.parameter() && i != attempt
                    && !excluded.remove("/" + names[i]);
        }
        CanonicalJson canonicalJson;
        try {
            canonicalJson = CanonicalJson.excluding(excluded);
        } catch (IdempotencyConfigurationException e) {
            throw e.renamed(where + " excludedFields");
        }
        List<Class<? extends Throwable>> finals = List.of(annotation.finalExceptions());
        for (Class<? extends Throwable> type : finals) {
            if (IdempotencyException.class.isAssignableFrom(type)) {
                throw IdempotencyConfigurationException.of(where + " finalExceptions", type.getSimpleName()
                        + " is OnceOnly's own exception, thrown before or instead of the method, never its outcome");
            }
        }
        MethodOutcomeCodec codec = new MethodOutcomeCodec(json, json.getTypeFactory().constructType(
                method.getGenericReturnType()), finals, method.getDeclaringClass().getClassLoader());

        IdempotencyEngineBuilder variant = engine.toBuilder()
                // Every outcome the codec stores is final: a result, or a declared final exception.
                .outcomePolicy(status -> OutcomePolicy.Decision.FAILED_FINAL);
        new AnnotatedTimings(annotation.waitTimeout(), annotation.retention(), annotation.failedRetention(),
                annotation.abandonedRetention()).applyTo(variant, engine, where);
        IdempotencyMode mode = annotation.mode();
        IdempotencyEngine defaultEngine = build(where, variant, mode == IdempotencyMode.AUTO ? engine.mode() : mode);
        IdempotencyEngine joinedEngine = mode == IdempotencyMode.AUTO && runner != null
                ? build(where, variant, IdempotencyMode.JOINED) : null;
        boolean transactional = defaultEngine.mode() != IdempotencyMode.LEASED || joinedEngine != null;
        TransactionTemplate savepoint = null;
        if (transactional && !finals.isEmpty()) {
            if (transactions == null) {
                throw IdempotencyConfigurationException.of(where + " finalExceptions", "a final exception's writes "
                        + "are rolled back to a savepoint before its outcome commits, and no single "
                        + "PlatformTransactionManager exists to set one", "Keep one transaction manager, or use "
                        + "mode = LEASED");
            }
            savepoint = new TransactionTemplate(transactions);
            savepoint.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
        }
        return new IdempotentMethodDefinition(method, operation, key, owner, attempt, names, fingerprinted,
                canonicalJson, json, codec, defaultEngine, joinedEngine, runner, savepoint, beans);
    }

    private static IdempotencyEngine build(String where, IdempotencyEngineBuilder variant, IdempotencyMode mode) {
        try {
            return variant.mode(mode).build();
        } catch (IdempotencyConfigurationException e) {
            throw e.renamed(where + " mode");
        }
    }

    private static void requireSynchronous(String where, Method method) {
        Class<?> returned = method.getReturnType();
        boolean reactive = Arrays.stream(returned.getInterfaces()).map(Class::getName)
                .anyMatch(REACTIVE_PUBLISHER::equals) || returned.getName().equals(REACTIVE_PUBLISHER);
        if (CompletionStage.class.isAssignableFrom(returned) || Future.class.isAssignableFrom(returned) || reactive) {
            throw IdempotencyConfigurationException.of(where, "the method returns " + returned.getSimpleName()
                    + "; an idempotent method must return its result, so that its outcome is known when it is "
                    + "stored");
        }
    }

    private static String[] parameterNames(Method method) {
        String[] discovered = NAMES.getParameterNames(method);
        if (discovered != null) {
            return discovered;
        }
        String[] names = new String[method.getParameterCount()];
        Arrays.setAll(names, i -> "arg" + i);
        return names;
    }

    private static Source source(String where, String what, Method method,
            Class<? extends java.lang.annotation.Annotation> marker, String expression) {
        int parameter = -1;
        for (int i = 0; i < method.getParameterCount(); i++) {
            if (new MethodParameter(method, i).hasParameterAnnotation(marker)) {
                if (parameter >= 0) {
                    throw IdempotencyConfigurationException.of(where, "two parameters are annotated @"
                            + marker.getSimpleName());
                }
                parameter = i;
            }
        }
        if (expression.isBlank()) {
            return parameter < 0 ? Source.NONE : new Source(parameter, null);
        }
        if (parameter >= 0) {
            throw IdempotencyConfigurationException.of(where, "it gives both " + what + " = \"" + expression
                    + "\" and a parameter annotated @" + marker.getSimpleName(), "Keep one");
        }
        try {
            return new Source(-1, PARSER.parseExpression(expression));
        } catch (ParseException e) {
            throw IdempotencyConfigurationException.of(where + " " + what, "'" + expression + "' is not a SpEL "
                    + "expression: " + e.getSimpleMessage());
        }
    }

    MethodOutcomeCodec codec() {
        return codec;
    }

    int attemptParameter() {
        return attemptParameter;
    }

    /**
     * The scope of a call with these arguments.
     *
     * @throws dev.onceonly.InvalidIdempotencyKeyException if the key is missing, empty or breaks the key rules
     * @throws IllegalArgumentException if a declared owner is missing, blank or too long
     */
    IdempotencyScope scope(Object[] arguments) {
        Object value = value(key, arguments);
        if (value == null) {
            // The key's own rules name the violation: an empty key is missing.
            value = "";
        }
        dev.onceonly.IdempotencyKey idempotencyKey = new dev.onceonly.IdempotencyKey(value.toString());
        String ownerOfCall = owner.declared() ? MethodOwners.declared(value(owner, arguments)) : MethodOwners.current();
        return IdempotencyScope.of(ownerOfCall, operation, idempotencyKey);
    }

    private @Nullable Object value(Source source, Object[] arguments) {
        if (source.parameter() >= 0) {
            return arguments[source.parameter()];
        }
        MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(null, method, arguments, NAMES);
        context.setBeanResolver(new BeanFactoryResolver(beans));
        return source.expression().getValue(context);
    }

    /** The canonical JSON of the fingerprinted arguments, by parameter name. */
    Fingerprint fingerprint(Object[] arguments) {
        ObjectNode fingerprintedArguments = json.createObjectNode();
        for (int i = 0; i < arguments.length; i++) {
            if (fingerprinted[i]) {
                fingerprintedArguments.set(names[i], json.valueToTree(arguments[i]));
            }
        }
        return Fingerprint.builder().jsonBody(json.writeValueAsBytes(fingerprintedArguments), canonicalJson).build();
    }

    /**
     * The engine for a call now: joined inside a transaction of the store's where the mode is {@code AUTO}, else the
     * method's mode.
     */
    IdempotencyEngine engine() {
        if (joinedEngine != null && runner != null && runner.isTransactionActive()) {
            return joinedEngine;
        }
        return defaultEngine;
    }

    /** Where a call's final exception must be rolled back to a savepoint; {@code null} outside a transaction. */
    @Nullable TransactionTemplate savepoint(IdempotencyEngine engine) {
        return engine.mode() == IdempotencyMode.LEASED ? null : savepoint;
    }
}
