package dev.onceonly.example;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** Sends requests at once: each on its own virtual thread, all released together by one latch. */
final class ConcurrentRequests {

    /** One of the requests; {@code index} tells it from the others. */
    @FunctionalInterface
    interface Call {
        HttpResponse<byte[]> send(int index) throws Exception;
    }

    private ConcurrentRequests() {
    }

    /** The responses in the order of the calls' indexes. */
    static List<HttpResponse<byte[]>> send(int count, Call call) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<HttpResponse<byte[]>>> futures = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                int index = i;
                futures.add(threads.submit(() -> {
                    start.await();
                    return call.send(index);
                }));
            }
            start.countDown();
            List<HttpResponse<byte[]>> responses = new ArrayList<>();
            for (Future<HttpResponse<byte[]>> future : futures) {
                responses.add(future.get(120, TimeUnit.SECONDS));
            }
            return responses;
        }
    }
}
