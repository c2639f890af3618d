package dev.onceonly.spring.method;

import dev.onceonly.Attempt;
import dev.onceonly.CanonicalJson;
import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyConfigurationException;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyException;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyMode;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.OperationPolicy;
import dev.onceonly.OutcomePolicy;
import dev.onceonly.TransactionRunner;
import dev.onceonly.spring.AnnotatedTimings;
import dev.onceonly.spring.OnceOnlySetup;
import dev.onceonly.spring.web.Idempotent;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.MethodParameter;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotatedMethod;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.scheduling.annotation.Async;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.AnnotationTransactionAttributeSource;
import org.springframework.transaction.interceptor.TransactionAttribute;
import org.springframework.transaction.interceptor.TransactionAttributeSource;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.type.TypeFactory;

/**
 * One {@link IdempotentMethod}, checked and set up once: where its key and owner come from, which arguments its
 * fingerprint covers, its codec and its engines. Thread-safe.
 */
final class IdempotentMethodDefinition {

    private static final SpelExpressionParser PARSER = new SpelExpressionParser();
    private static final ParameterNameDiscoverer NAMES = new DefaultParameterNameDiscoverer();
    private static final TransactionAttributeSource TRANSACTION_ATTRIBUTES =
            new AnnotationTransactionAttributeSource();

    /** Where a call's key or owner comes from: an argument or an expression over them, or nowhere. */
    private record Source(int parameter, @Nullable Expression expression) {

        static final Source NONE = new Source(-1, null);

        boolean declared() {
            return parameter >= 0 || expression != null;
        }
    }

    private final Method method;
    private final String where;
    private final String operation;
    private final boolean defaultOperation;
    private final Source key;
    private final Source owner;
    /** Whether a call without a declared owner or a principal shares the anonymous owner, or is refused. */
    private final boolean allowAnonymous;
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

    private IdempotentMethodDefinition(Method method, String where, String operation, boolean defaultOperation,
            Source key, Source owner, boolean allowAnonymous, int attempt,
            String[] names, boolean[] fingerprinted, CanonicalJson canonicalJson, JsonMapper json,
            MethodOutcomeCodec codec, IdempotencyEngine defaultEngine,
            @Nullable IdempotencyEngine joinedEngine, @Nullable TransactionRunner runner,
            @Nullable TransactionTemplate savepoint, BeanFactory beans) {
        this.method = method;
        this.where = where;
        this.operation = operation;
        this.defaultOperation = defaultOperation;
        this.key = key;
        this.owner = owner;
        this.allowAnonymous = allowAnonymous;
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
     * @param method the annotated method
     * @param targetClass the bean's class, whose method it is (declared there or inherited)
     * @param engine the application's engine, whose settings the method's override
     * @param runner the application's transaction runner, if it has one
     * @param transactions the transaction manager the runner uses, for savepoints
     * @param allowAnonymous whether calls without a declared owner or an authenticated principal share one owner
     *     ({@code onceonly.method.allow-anonymous}), rather than being refused
     * @throws IdempotencyConfigurationException naming the method and the attribute that is wrong
     */
    static IdempotentMethodDefinition of(Method method, Class<?> targetClass, IdempotentMethod annotation,
            IdempotencyEngine engine, @Nullable TransactionRunner runner,
            @Nullable PlatformTransactionManager transactions, JsonMapper json, BeanFactory beans,
            boolean allowAnonymous) {
        String where = "@IdempotentMethod on " + targetClass.getSimpleName() + "." + method.getName();
        int modifiers = method.getModifiers();
        if (Modifier.isPrivate(modifiers) || Modifier.isStatic(modifiers) || Modifier.isFinal(modifiers)) {
            throw IdempotencyConfigurationException.of(where, "the method is private, static or final, so no proxy "
                    + "can intercept it and the annotation would have no effect", "Make it a public method");
        }
        if (AnnotatedElementUtils.hasAnnotation(method, Idempotent.class)) {
            throw IdempotencyConfigurationException.of(where, "the method also carries @Idempotent", "Keep one: "
                    + "@Idempotent on controller methods, @IdempotentMethod on other beans' methods");
        }
        requireSynchronous(where, method, targetClass);
        boolean defaultOperation = annotation.value().isBlank();
        String operation = defaultOperation ? targetClass.getSimpleName() + "." + method.getName()
                : annotation.value();
        if (operation.length() > IdempotencyScope.MAX_NAME_LENGTH) {
            throw IdempotencyConfigurationException.of(where, "the operation name is longer than "
                    + IdempotencyScope.MAX_NAME_LENGTH + " characters");
        }
        String[] names = parameterNames(where, method, !annotation.key().isBlank() || !annotation.owner().isBlank()
                || annotation.excludedFields().length > 0);
        Source key = source(where, "key", method, IdempotencyKeyParam.class, annotation.key());
        if (!key.declared()) {
            throw IdempotencyConfigurationException.of(where, "it names no key", "Annotate the parameter that holds "
                    + "the key with @IdempotencyKeyParam, or give key = \"#command.id\"");
        }
        Source owner = source(where, "owner", method, IdempotencyOwner.class, annotation.owner());
        if (!owner.declared() && !allowAnonymous && !MethodOwners.principalsAvailable(
                beans instanceof ConfigurableBeanFactory factory ? factory.getBeanClassLoader() : null)) {
            throw IdempotencyConfigurationException.of(where, "it declares no owner, and without Spring Security no "
                    + "call has an authenticated principal to own its key: every call would be refused", "Declare "
                    + "the owner (@IdempotencyOwner, or owner = \"#tenant.id\"), or let such calls share one owner "
                    + "with onceonly.method.allow-anonymous=true");
        }
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
        for (String pointer : excluded) {
            String parameter = pointer.length() > 1 ? pointer.substring(1).split("/", 2)[0] : "";
            if (Arrays.stream(names).noneMatch(parameter::equals)) {
                throw IdempotencyConfigurationException.of(where + " excludedFields", "'" + pointer + "' names no "
                        + "parameter; pointers start with one, such as /" + (names.length > 0 ? names[0] : "command")
                        + "/requestedAt");
            }
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
            if (isA(type, "java.sql.SQLException") || isA(type, "org.springframework.dao.DataAccessException")) {
                throw IdempotencyConfigurationException.of(where + " finalExceptions", type.getSimpleName()
                        + " is a database failure, whose message can quote rows; a final exception's message is "
                        + "stored", "Translate it into an exception of your own that says what went wrong");
            }
        }
        MethodOutcomeCodec codec;
        try {
            Class<?> declared = method.getReturnType();
            codec = new MethodOutcomeCodec(json, declared == void.class ? json.constructType(Void.class)
                    : javaType(json.getTypeFactory(), ResolvableType.forMethodReturnType(method, targetClass)),
                    finals);
        } catch (IllegalArgumentException e) {
            throw IdempotencyConfigurationException.of(where + " finalExceptions", String.valueOf(e.getMessage()));
        }

        // Every outcome the codec stores is final: a result, or a declared final exception.
        OperationPolicy policy = new AnnotatedTimings(annotation.waitTimeout(), annotation.retention(),
                annotation.failedRetention(), annotation.abandonedRetention()).applyTo(OperationPolicy.ENGINE_DEFAULTS
                .withOutcomePolicy(status -> OutcomePolicy.Decision.FAILED_FINAL), engine, where);
        IdempotencyMode mode = annotation.mode();
        IdempotencyEngine defaultEngine = forOperation(where, engine, policy.withMode(mode == IdempotencyMode.AUTO
                ? engine.mode() : mode));
        IdempotencyEngine joinedEngine = mode == IdempotencyMode.AUTO && runner != null
                ? forOperation(where, engine, policy.withMode(IdempotencyMode.JOINED)) : null;
        boolean transactional = defaultEngine.mode() != IdempotencyMode.LEASED || joinedEngine != null;
        if (transactional) {
            requireJoiningPropagation(where, method, targetClass);
        }
        TransactionTemplate savepoint = null;
        if (transactional && !finals.isEmpty()) {
            if (transactions == null) {
                throw IdempotencyConfigurationException.of(where + " finalExceptions", "a final exception's writes "
                        + "are rolled back to a savepoint before its outcome commits, and no single "
                        + "PlatformTransactionManager exists to set one", "Keep one transaction manager, or use "
                        + "mode = LEASED");
            }
            if (transactions instanceof AbstractPlatformTransactionManager manager
                    && !manager.isNestedTransactionAllowed()) {
                throw IdempotencyConfigurationException.of(where + " finalExceptions", "a final exception's writes "
                        + "are rolled back to a savepoint before its outcome commits, and the transaction manager "
                        + manager.getClass().getSimpleName() + " does not allow nested transactions (JPA's does not "
                        + "by default)", "Allow them (setNestedTransactionAllowed(true), with a JDBC driver that "
                        + "has savepoints), or use mode = LEASED");
            }
            savepoint = new TransactionTemplate(transactions);
            savepoint.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
        }
        return new IdempotentMethodDefinition(method, where, operation, defaultOperation, key, owner, allowAnonymous,
                attempt, names, fingerprinted, canonicalJson, json, codec, defaultEngine, joinedEngine, runner,
                savepoint, beans);
    }

    private static IdempotencyEngine forOperation(String where, IdempotencyEngine engine, OperationPolicy policy) {
        try {
            return engine.forOperation(policy);
        } catch (IdempotencyConfigurationException e) {
            throw e.renamed(where + " mode");
        }
    }

    private static void requireSynchronous(String where, Method method, Class<?> targetClass) {
        // As the bean's class has it: a generic base class's R may be its own type there.
        Class<?> returned = ResolvableType.forMethodReturnType(method, targetClass).toClass();
        if (CompletionStage.class.isAssignableFrom(returned) || Future.class.isAssignableFrom(returned)
                || ReactiveAdapterRegistry.getSharedInstance().getAdapter(returned) != null) {
            throw IdempotencyConfigurationException.of(where, "the method returns " + returned.getSimpleName()
                    + "; an idempotent method must return its result, so that its outcome is known when it is "
                    + "stored");
        }
        if (returned == Object.class) {
            throw IdempotencyConfigurationException.of(where, "the method returns Object, so a replay could not "
                    + "know the type to read its result back as", "Declare the type it returns");
        }
        if (AnnotatedElementUtils.hasAnnotation(method, Async.class)
                || AnnotatedElementUtils.hasAnnotation(targetClass, Async.class)) {
            throw IdempotencyConfigurationException.of(where, "the method runs @Async, so it returns before its "
                    + "work is done and its outcome could not be stored", "Make the method that the asynchronous "
                    + "work calls idempotent instead");
        }
    }

    /**
     * The method's own {@code @Transactional} must join the transaction the claim is in: one of its own would commit
     * the writes apart from the outcome, or run them outside any.
     */
    private static void requireJoiningPropagation(String where, Method method, Class<?> targetClass) {
        TransactionAttribute attribute = TRANSACTION_ATTRIBUTES.getTransactionAttribute(method, targetClass);
        if (attribute == null) {
            return;
        }
        int propagation = attribute.getPropagationBehavior();
        if (propagation != TransactionDefinition.PROPAGATION_REQUIRED
                && propagation != TransactionDefinition.PROPAGATION_SUPPORTS
                && propagation != TransactionDefinition.PROPAGATION_MANDATORY) {
            throw IdempotencyConfigurationException.of(where, "its @Transactional propagation does not join the "
                    + "transaction its claim and outcome are in, so its writes would commit apart from them",
                    "Keep the default propagation (REQUIRED), or use mode = LEASED");
        }
    }

    /** The type as Jackson knows it, with its type variables resolved as {@link ResolvableType} resolved them. */
    private static JavaType javaType(TypeFactory types, ResolvableType type) {
        if (type.isArray()) {
            return types.constructArrayType(javaType(types, type.getComponentType()));
        }
        ResolvableType[] generics = type.getGenerics();
        if (generics.length == 0) {
            return types.constructType(type.toClass());
        }
        return types.constructParametricType(type.toClass(), Arrays.stream(generics)
                .map(generic -> javaType(types, generic)).toArray(JavaType[]::new));
    }

    private static boolean isA(Class<?> type, String superclass) {
        for (Class<?> at = type; at != null; at = at.getSuperclass()) {
            if (at.getName().equals(superclass)) {
                return true;
            }
        }
        return false;
    }

    private static String[] parameterNames(String where, Method method, boolean named) {
        @Nullable String[] discovered = NAMES.getParameterNames(method);
        if (discovered == null && named) {
            throw IdempotencyConfigurationException.of(where, "its expressions or excluded fields name parameters, "
                    + "and the class was compiled without their names", "Compile with -parameters (Spring Boot's "
                    + "build plugins do), or use #p0, #p1 … and @IdempotencyKeyParam");
        }
        String[] names = new String[method.getParameterCount()];
        for (int i = 0; i < names.length; i++) {
            String name = discovered == null ? null : discovered[i];
            names[i] = name == null ? "arg" + i : name;
        }
        return names;
    }

    private static Source source(String where, String what, Method method,
            Class<? extends java.lang.annotation.Annotation> marker, String expression) {
        int parameter = -1;
        // Annotations on an interface's declaration of the method count too.
        MethodParameter[] parameters = new AnnotatedMethod(method).getMethodParameters();
        for (int i = 0; i < parameters.length; i++) {
            if (parameters[i].hasParameterAnnotation(marker)) {
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

    String where() {
        return where;
    }

    String operation() {
        return operation;
    }

    /** Whether the operation is the default name, class and method, rather than one the annotation gives. */
    boolean defaultOperation() {
        return defaultOperation;
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
     * @throws IllegalArgumentException if a declared owner is missing
     * @throws dev.onceonly.http.OwnerUnresolvableException if a declared owner is blank or too long
     * @throws dev.onceonly.http.AuthenticationRequiredException if no owner is declared, no principal is
     *     authenticated and anonymous calls are refused
     */
    IdempotencyScope scope(@Nullable Object[] arguments) {
        Object value = value(key, arguments);
        if (value == null) {
            // The key's own rules name the violation: an empty key is missing.
            value = "";
        }
        IdempotencyKey idempotencyKey = new IdempotencyKey(value.toString());
        String ownerOfCall = owner.declared() ? MethodOwners.declared(value(owner, arguments))
                : MethodOwners.current(where, allowAnonymous);
        return IdempotencyScope.of(ownerOfCall, operation, idempotencyKey);
    }

    private @Nullable Object value(Source source, @Nullable Object[] arguments) {
        if (source.parameter() >= 0) {
            return arguments[source.parameter()];
        }
        Expression expression = source.expression();
        if (expression == null) {
            return null; // Source.NONE: nothing declared
        }
        MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(null, method, arguments, NAMES);
        context.setBeanResolver(new BeanFactoryResolver(beans));
        return expression.getValue(context);
    }

    /** The canonical JSON of the fingerprinted arguments, by parameter name. */
    Fingerprint fingerprint(@Nullable Object[] arguments) {
        ObjectNode fingerprintedArguments = json.createObjectNode();
        for (int i = 0; i < arguments.length; i++) {
            if (fingerprinted[i]) {
                fingerprintedArguments.set(names[i], json.valueToTree(arguments[i]));
            }
        }
        return Fingerprint.builder().jsonBody(json.writeValueAsBytes(fingerprintedArguments), canonicalJson).build();
    }

    /** How calls run, as {@link OnceOnlySetup} says it. */
    String modeLabel() {
        String mode = OnceOnlySetup.label(defaultEngine.mode());
        return joinedEngine != null ? "auto (joined in a caller's transaction, else " + mode + ")" : mode;
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

    /**
     * Where a call's final exception is rolled back to in a transactional attempt; {@code null} if the method has no
     * final exceptions, or runs in no transaction.
     */
    @Nullable TransactionTemplate savepoint() {
        return savepoint;
    }
}
