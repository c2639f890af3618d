package dev.onceonly.spring.boot.method;

import dev.onceonly.spring.boot.method.MethodOrders.CreateOrder;
import dev.onceonly.spring.boot.method.MethodOrders.OrderView;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.springframework.transaction.support.TransactionTemplate;

/** How a test reaches the service: one method per mode, the joined one from a caller's transaction. */
enum MethodMode {
    TRANSACTIONAL, LEASED, JOINED;

    OrderView call(MethodOrders orders, TransactionTemplate transactions, String customer, String key,
            CreateOrder order) {
        return switch (this) {
            case TRANSACTIONAL -> orders.createTransactional(customer, key, order);
            case LEASED -> orders.createLeased(customer, key, order, null);
            case JOINED -> transactions.execute(status -> orders.createJoined(customer, key, order));
        };
    }

    /** The results of {@code callers} calls with the same key and order, all let go at once. */
    List<OrderView> concurrently(int callers, MethodOrders orders, TransactionTemplate transactions, String customer,
            String key, CreateOrder order) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(callers);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<OrderView>> calls = new ArrayList<>();
            for (int i = 0; i < callers; i++) {
                calls.add(threads.submit(() -> {
                    start.await();
                    return call(orders, transactions, customer, key, order);
                }));
            }
            start.countDown();
            List<OrderView> results = new ArrayList<>();
            for (Future<OrderView> call : calls) {
                results.add(call.get());
            }
            return results;
        } finally {
            threads.shutdownNow();
        }
    }
}
