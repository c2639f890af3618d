package dev.onceonly.spring.web;

import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Who sent a request to a WebFlux application: the owner part of every key's scope, with the rules of
 * {@link IdempotencyOwnerResolver}. Must not block: it runs on the server's event loop.
 */
@FunctionalInterface
public interface ReactiveIdempotencyOwnerResolver {

    /** The owner of {@code exchange}'s request; empty if the request is not authenticated. */
    Mono<String> resolveOwner(ServerWebExchange exchange);

    /** Spring Security's authenticated principal, as {@link SecurityOwnerResolver} names it. */
    static ReactiveIdempotencyOwnerResolver securityContext() {
        return exchange -> org.springframework.security.core.context.ReactiveSecurityContextHolder.getContext()
                .mapNotNull(context -> SecurityOwnerResolver.ownerOf(context.getAuthentication()));
    }
}
