package dev.onceonly.example.orders;

/** Whether a payment may go ahead for an order: the answer of {@link OrderService#bindPayment}. */
public enum PaymentBinding {
    /** The order awaits payment and is now (or was already) bound to this payment's key. */
    BOUND,
    /** The order is bound to another payment's key. */
    BOUND_TO_ANOTHER,
    /** The order does not await payment (paid, refunded) and is not bound to this payment. */
    NOT_PAYABLE,
    /** The owner has no such order. */
    NOT_FOUND
}
