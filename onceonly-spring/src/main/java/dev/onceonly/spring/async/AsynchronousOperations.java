package dev.onceonly.spring.async;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.OutcomeCodec;
import dev.onceonly.StoredResponse;
import dev.onceonly.Submission;
import dev.onceonly.spi.IdempotencyRecord;
import java.util.Optional;
import java.util.Set;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import tools.jackson.databind.json.JsonMapper;

/**
 * Accepts asynchronous operations and reports how they stand. {@link #submit} stores the operation's record and
 * its task in one transaction and returns at once; a worker on any instance runs the registered
 * {@link AsynchronousOperation} under a renewed lease, tries again after crashes and retryable failures, and
 * stores the outcome; duplicates and {@link #status} read the record and never run anything.
 *
 * <p>An HTTP endpoint answers {@link Submission.Accepted} with {@code 202 Accepted}, a {@code Location} of a status
 * resource and {@code Retry-After}, and {@link Submission.Finished} with the stored outcome. Thread-safe.
 */
public final class AsynchronousOperations {

    private final IdempotencyEngine engine;
    private final OperationQueue queue;
    private final JsonMapper json;
    private final Set<String> names;

    /** @param names the names of the {@link AsynchronousOperation} beans, which workers run */
    public AsynchronousOperations(IdempotencyEngine engine, OperationQueue queue, JsonMapper json, Set<String> names) {
        this.engine = engine;
        this.queue = queue;
        this.json = json;
        this.names = Set.copyOf(names);
    }

    /** Whether an {@link AsynchronousOperation} bean of this name runs submitted operations. */
    public boolean runs(String operation) {
        return names.contains(operation);
    }

    /**
     * Accepts the operation of {@code scope} unless it was accepted before, in a transaction of the engine's: the
     * record and the task commit together, and the workers look for it as soon as it committed. Call it outside
     * any transaction: the record and the task are the whole of the request's effect, and the worker's writes
     * happen in transactions of their own.
     *
     * @param scope owner, operation (the name of a registered {@link AsynchronousOperation}) and key as sent
     * @param payload what the worker needs, stored as JSON until the operation finished
     * @throws dev.onceonly.IdempotencyKeyReusedException if the key was used for another request in this scope
     * @throws dev.onceonly.IdempotencyStoreException if the database is unreachable (nothing was accepted)
     * @throws dev.onceonly.IdempotencyConfigurationException if called inside a transaction
     */
    public Submission<StoredResponse> submit(IdempotencyScope scope, Fingerprint fingerprint, Object payload) {
        String data = json.writeValueAsString(payload);
        return engine.submit(scope, fingerprint, OutcomeCodec.identity(), stored -> {
            queue.enqueue(OperationTask.of(stored, data));
            if (TransactionSynchronizationManager.isSynchronizationActive()) {
                // The task becomes visible at commit; polling alone would find it only at its next round.
                TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                    @Override
                    public void afterCommit() {
                        queue.lookNow();
                    }
                });
            }
        });
    }

    /**
     * The record of an operation, looked up by the key as the client sent it: PROCESSING (queued or running),
     * FAILED_RETRYABLE (waiting for its next attempt) or final with its outcome.
     */
    public Optional<IdempotencyRecord> status(IdempotencyScope scope) {
        return engine.find(scope);
    }
}
