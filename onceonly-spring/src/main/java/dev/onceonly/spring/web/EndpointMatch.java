package dev.onceonly.spring.web;

/**
 * A request matched to an idempotent endpoint.
 *
 * @param route the route template it matched, such as {@code /api/orders/{id}}
 */
record EndpointMatch(IdempotentEndpoint endpoint, String route) {
}
