package dev.onceonly.example.orders;

/** Where an order stands. Payment, which moves it on, comes with the payments API. */
public enum OrderStatus {
    PENDING_PAYMENT,
    PAID,
    REFUNDED
}
