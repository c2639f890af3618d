package dev.onceonly.spring.web.internal;

/**
 * A request matched to an idempotent endpoint.
 *
 * @param route the route template it matched, such as {@code /api/orders/{id}}
 */
public record EndpointMatch(IdempotentEndpoint endpoint, String route) {
}
