package dev.onceonly.spring.method;

import dev.onceonly.IdempotencyConfigurationException;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.TransactionRunner;
import dev.onceonly.spring.OnceOnlySetup;
import java.lang.reflect.Method;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.BridgeMethodResolver;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.util.ClassUtils;
import tools.jackson.databind.json.JsonMapper;

/**
 * The {@link IdempotentMethod}s of the application, each set up once: those of every singleton when the application
 * starts, so that a bad attribute stops it, and those of beans created later at their first call.
 */
public final class IdempotentMethods implements SmartInitializingSingleton {

    private final ListableBeanFactory beans;
    private final IdempotencyEngine engine;
    private final @Nullable TransactionRunner runner;
    private final @Nullable PlatformTransactionManager transactions;
    private final JsonMapper json;
    private final boolean allowAnonymous;
    /** A method as a bean class has it (declared there or inherited). */
    private record BeanMethod(Method method, Class<?> beanClass) {
    }

    private static final Comparator<Method> BY_NAME = Comparator.comparing(Method::getName)
            .thenComparing(Method::toGenericString);

    /** Empty for a method without the annotation. */
    private final ConcurrentMap<BeanMethod, Optional<IdempotentMethodDefinition>> definitions =
            new ConcurrentHashMap<>();

    public IdempotentMethods(ListableBeanFactory beans, IdempotencyEngine engine, @Nullable TransactionRunner runner,
            @Nullable PlatformTransactionManager transactions, JsonMapper json, boolean allowAnonymous) {
        this.beans = beans;
        this.engine = engine;
        this.runner = runner;
        this.transactions = transactions;
        this.json = json;
        this.allowAnonymous = allowAnonymous;
    }

    @Override
    public void afterSingletonsInstantiated() {
        for (String name : beans.getBeanDefinitionNames()) {
            Class<?> type = beans.getType(name, false);
            if (type == null || type.getName().startsWith("org.springframework.")
                    || !AnnotationUtils.isCandidateClass(type, IdempotentMethod.class)) {
                continue;
            }
            Class<?> userClass = ClassUtils.getUserClass(type);
            // In a stable order, which reflection does not give: a wrong annotation is reported alike at each start.
            MethodIntrospector.selectMethods(userClass, (MethodIntrospector.MetadataLookup<IdempotentMethod>)
                    method -> AnnotatedElementUtils.findMergedAnnotation(method, IdempotentMethod.class))
                    .keySet().stream().sorted(BY_NAME).forEach(method -> definition(method, userClass));
        }
        requireDistinctOperations();
        beans.getBeanProvider(OnceOnlySetup.class).ifAvailable(setup -> definitions.values().forEach(found ->
                found.ifPresent(definition -> setup.operation(OnceOnlySetup.Kind.METHOD, definition.operation(),
                        definition.modeLabel()))));
    }

    /** Two methods under one default name (overloads, classes of one name) would share their keys unawares. */
    private void requireDistinctOperations() {
        Map<String, IdempotentMethodDefinition> byOperation = new HashMap<>();
        for (Optional<IdempotentMethodDefinition> found : definitions.values()) {
            found.ifPresent(definition -> {
                IdempotentMethodDefinition other = byOperation.putIfAbsent(definition.operation(), definition);
                if (other != null && (definition.defaultOperation() || other.defaultOperation())) {
                    throw IdempotencyConfigurationException.of(definition.where(), "its default operation name '"
                            + definition.operation() + "' is also the operation of " + other.where(), "Name the "
                            + "operation: @IdempotentMethod(\"create-order\")");
                }
            });
        }
    }

    /**
     * The definition of {@code method} as {@code targetClass} implements it, or {@code null} if it is not annotated.
     *
     * @throws dev.onceonly.IdempotencyConfigurationException if its annotation is wrong
     */
    @Nullable IdempotentMethodDefinition definition(Method method, Class<?> targetClass) {
        Method specific = BridgeMethodResolver.findBridgedMethod(ClassUtils.getMostSpecificMethod(method,
                targetClass));
        Class<?> beanClass = ClassUtils.getUserClass(targetClass);
        return definitions.computeIfAbsent(new BeanMethod(specific, beanClass), this::define).orElse(null);
    }

    private Optional<IdempotentMethodDefinition> define(BeanMethod method) {
        IdempotentMethod annotation = AnnotatedElementUtils.findMergedAnnotation(method.method(),
                IdempotentMethod.class);
        return annotation == null ? Optional.empty() : Optional.of(IdempotentMethodDefinition.of(method.method(),
                method.beanClass(), annotation, engine, runner, transactions, json, (BeanFactory) beans,
                allowAnonymous));
    }
}
