package dev.onceonly.docs;

// The application's own types the snippets use; not shown on any page.

record CreateOrder(long skuId, int quantity) {
}

record Order(long id, long skuId, int quantity) {
}

interface OrderService {
    Order place(String owner, CreateOrder request);
}

record ChargeRequest(long cents) {
}

record Receipt(String id, long cents) {
}

record PaymentEvent(String eventId, long cents) {
}

class CardDeclinedException extends Exception {
    CardDeclinedException(String message) {
        super(message);
    }
}

interface Ledger {
    Receipt debit(String customer, ChargeRequest request) throws CardDeclinedException;

    void record(PaymentEvent event);
}
