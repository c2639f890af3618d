package dev.onceonly.spring.web.servlet;

import dev.onceonly.spring.web.internal.AnnotatedEndpoints;
import dev.onceonly.spring.web.internal.IdempotentEndpoint;
import jakarta.servlet.ServletRequest;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import org.jspecify.annotations.Nullable;
import org.springframework.core.MethodParameter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.ResolvableType;
import org.springframework.http.HttpEntity;
import org.springframework.http.RequestEntity;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.context.request.async.DeferredResult;
import org.springframework.web.context.request.async.WebAsyncTask;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.method.annotation.AbstractWebArgumentResolverAdapter;
import org.springframework.web.method.annotation.ModelAttributeMethodProcessor;
import org.springframework.web.method.annotation.RequestParamMapMethodArgumentResolver;
import org.springframework.web.method.annotation.RequestParamMethodArgumentResolver;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.multipart.MultipartRequest;
import org.springframework.web.servlet.mvc.method.annotation.ResponseBodyEmitter;
import org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody;

/** What an annotated handler's signature tells when the application starts. */
final class HandlerSignature {


    private HandlerSignature() {
    }

    /**
     * The declared return type if it answers asynchronously, or may ({@code Object}, whose value Spring MVC
     * dispatches by its runtime type), else {@code null}. The body type of a {@code ResponseEntity} counts, as
     * Spring MVC streams a {@code ResponseEntity<StreamingResponseBody>} or {@code ResponseEntity<Flux<…>>}.
     */
    static @Nullable ResolvableType asynchronousReturnType(HandlerMethod handler) {
        ResolvableType declared = ResolvableType.forMethodParameter(handler.getReturnType());
        Class<?> returned = declared.toClass();
        if (returned == Object.class || isAsynchronous(returned)) {
            return declared;
        }
        if (HttpEntity.class.isAssignableFrom(returned)) {
            Class<?> body = declared.as(HttpEntity.class).getGeneric(0).resolve();
            return body != null && isAsynchronous(body) ? declared : null;
        }
        return null;
    }

    private static boolean isAsynchronous(Class<?> type) {
        return Callable.class.isAssignableFrom(type) || WebAsyncTask.class.isAssignableFrom(type)
                || Future.class.isAssignableFrom(type) || CompletionStage.class.isAssignableFrom(type)
                || DeferredResult.class.isAssignableFrom(type) || ResponseBodyEmitter.class.isAssignableFrom(type)
                || StreamingResponseBody.class.isAssignableFrom(type)
                || ReactiveAdapterRegistry.getSharedInstance().getAdapter(type) != null;
    }

    /**
     * The query parameters the handler binds, found as Spring MVC finds them (the first argument resolver that
     * supports a parameter): named {@code @RequestParam}s and simple types bound by name; a map of all request
     * parameters, a model attribute, or the request itself ({@code HttpServletRequest}, {@code WebRequest},
     * {@code RequestEntity}, whose use of parameters cannot be seen) read any of them
     * ({@value IdempotentEndpoint#ALL_PARAMETERS}); so may any resolver that is not Spring MVC's or Spring
     * Security's own (Spring Data's {@code Pageable}, an application's), whose reads cannot be seen either.
     */
    static Set<String> boundQueryParameters(HandlerMethod handler, List<HandlerMethodArgumentResolver> resolvers) {
        Set<String> names = new TreeSet<>();
        for (MethodParameter parameter : handler.getMethodParameters()) {
            HandlerMethodArgumentResolver resolver = resolvers.stream()
                    .filter(candidate -> candidate.supportsParameter(parameter)).findFirst().orElse(null);
            if (resolver instanceof RequestParamMapMethodArgumentResolver
                    || resolver instanceof ModelAttributeMethodProcessor || isRequest(parameter.getParameterType())
                    || (resolver != null && !isSpringResolver(resolver))) {
                names.add(IdempotentEndpoint.ALL_PARAMETERS);
            } else if (resolver instanceof RequestParamMethodArgumentResolver) {
                names.add(AnnotatedEndpoints.boundName(parameter));
            }
        }
        return names;
    }

    /**
     * Spring MVC's and Spring Security's resolvers (and ours, which reads no request data), but not the adapters
     * that run an application's resolver.
     */
    private static boolean isSpringResolver(HandlerMethodArgumentResolver resolver) {
        String name = resolver.getClass().getName();
        return resolver instanceof FilterArgumentResolver
                || (name.startsWith("org.springframework.web.") || name.startsWith("org.springframework.security."))
                && !(resolver instanceof AbstractWebArgumentResolverAdapter);
    }

    private static boolean isRequest(Class<?> type) {
        return ServletRequest.class.isAssignableFrom(type) || WebRequest.class.isAssignableFrom(type)
                || MultipartRequest.class.isAssignableFrom(type) || RequestEntity.class.isAssignableFrom(type);
    }
}
