package dev.onceonly.example.orders;

/**
 * Published, inside the order's transaction, when an order was placed: listeners' writes commit or roll back with
 * the order (the outbox of a later issue will listen here).
 *
 * @param order the new order
 * @param owner who placed it
 */
public record OrderPlaced(Order order, String owner) {
}
