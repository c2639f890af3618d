package dev.onceonly.jdbc;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.IdempotentWork;
import dev.onceonly.RequestInProgressException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;

/**
 * Several instances sending every key several times at once, as a load balancer spreads a client's retries: what
 * each key was answered. A request refused as in progress (another copy of its key was running) has no answer.
 */
final class ConcurrentCopies {

    private ConcurrentCopies() {
    }

    /**
     * Sends every key {@code copies} times, the copies spread over {@code instances} in turn, on eight threads.
     *
     * @param work the work of a key, given the key
     * @return the distinct answers of each key that got one
     */
    static Map<IdempotencyScope, Set<String>> send(List<IdempotencyEngine> instances, List<IdempotencyScope> keys,
            int copies, Fingerprint fingerprint, Function<IdempotencyScope, IdempotentWork<String, RuntimeException>> work)
            throws Exception {
        Map<IdempotencyScope, Set<String>> answers = new ConcurrentHashMap<>();
        List<Callable<Void>> requests = new ArrayList<>();
        for (IdempotencyScope key : keys) {
            for (int copy = 0; copy < copies; copy++) {
                IdempotencyEngine instance = instances.get(copy % instances.size());
                requests.add(() -> {
                    try {
                        String answer = instance.execute(key, fingerprint, new TextCodec(), work.apply(key)).value();
                        answers.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(answer);
                    } catch (RequestInProgressException inProgress) {
                        // a duplicate, while the key's first request runs
                    }
                    return null;
                });
            }
        }
        inParallel(requests);
        return answers;
    }

    /** Runs the requests on eight threads, all at once as far as they go, and rethrows the first failure. */
    static void inParallel(List<Callable<Void>> requests) throws Exception {
        try (ExecutorService threads = Executors.newFixedThreadPool(8)) {
            for (Future<Void> request : threads.invokeAll(requests)) {
                request.get();
            }
        }
    }
}
