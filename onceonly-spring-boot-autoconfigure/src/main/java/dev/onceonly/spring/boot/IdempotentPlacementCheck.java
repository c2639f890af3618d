package dev.onceonly.spring.boot;

import dev.onceonly.IdempotencyConfigurationException;
import dev.onceonly.spring.web.Idempotent;
import java.lang.reflect.Method;
import java.util.HashSet;
import java.util.Set;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.web.context.reactive.ReactiveWebApplicationContext;
import org.springframework.context.ApplicationContext;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/**
 * Stops startup where {@link Idempotent} would silently have no effect: on a method that is not a handler of the
 * application's web stack, Spring MVC or WebFlux (a service method wants {@code @IdempotentMethod}). Scans each bean class once, as Spring does
 * for {@code @EventListener}, after the handler mappings know their methods.
 */
final class IdempotentPlacementCheck implements SmartInitializingSingleton {

    private static final String MVC_MAPPING =
            "org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping";
    private static final String FLUX_MAPPING =
            "org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerMapping";

    private final ApplicationContext context;

    IdempotentPlacementCheck(ApplicationContext context) {
        this.context = context;
    }

    @Override
    public void afterSingletonsInstantiated() {
        Set<Method> annotated = annotatedMethods();
        if (annotated.isEmpty()) {
            return;
        }
        boolean reactive = context instanceof ReactiveWebApplicationContext;
        Set<Method> handlers = reactive
                ? ClassUtils.isPresent(FLUX_MAPPING, getClass().getClassLoader()) ? FluxHandlers.methods(context)
                        : Set.of()
                : ClassUtils.isPresent(MVC_MAPPING, getClass().getClassLoader()) ? MvcHandlers.methods(context)
                        : Set.of();
        for (Method method : annotated) {
            if (!handlers.contains(method)) {
                throw IdempotencyConfigurationException.of(where(method), "it is not a " + (reactive ? "WebFlux"
                        : "Spring MVC") + " handler method (a request mapping of a controller), so the annotation "
                        + "would have no effect",
                        "Use @IdempotentMethod on a service method, or move @Idempotent to the controller method "
                        + "that handles the request");
            }
        }
    }

    private Set<Method> annotatedMethods() {
        Set<Method> annotated = new HashSet<>();
        for (String name : context.getBeanDefinitionNames()) {
            Class<?> type = context.getType(name, false);
            // Spring's own infrastructure beans cannot carry the annotation: skipping them keeps startup cheap.
            if (type == null || type.getName().startsWith("org.springframework.")
                    || !AnnotationUtils.isCandidateClass(type, Idempotent.class)) {
                continue;
            }
            annotated.addAll(MethodIntrospector.selectMethods(ClassUtils.getUserClass(type),
                    (MethodIntrospector.MetadataLookup<Idempotent>) method ->
                            AnnotatedElementUtils.findMergedAnnotation(method, Idempotent.class)).keySet());
        }
        return annotated;
    }

    private static String where(Method method) {
        return "@Idempotent on " + method.getDeclaringClass().getSimpleName() + "." + method.getName();
    }

    /** Kept apart so that the WebFlux types load only where WebFlux is present. */
    private static final class FluxHandlers {

        static Set<Method> methods(ApplicationContext context) {
            Set<Method> methods = new HashSet<>();
            for (org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerMapping mapping
                    : context.getBeansOfType(org.springframework.web.reactive.result.method.annotation
                            .RequestMappingHandlerMapping.class).values()) {
                mapping.getHandlerMethods().values().stream().map(HandlerMethod::getMethod).forEach(methods::add);
            }
            return methods;
        }
    }

    /** Kept apart so that the MVC types load only where Spring MVC is present. */
    private static final class MvcHandlers {

        static Set<Method> methods(ApplicationContext context) {
            Set<Method> methods = new HashSet<>();
            for (RequestMappingHandlerMapping mapping : context.getBeansOfType(RequestMappingHandlerMapping.class)
                    .values()) {
                mapping.getHandlerMethods().values().stream().map(HandlerMethod::getMethod).forEach(methods::add);
            }
            return methods;
        }
    }
}
