package dev.onceonly.jdbc;

import dev.onceonly.IdempotencyConfigurationException;
import dev.onceonly.IdempotencyStoreException;
import dev.onceonly.TransactionRollbackException;
import dev.onceonly.TransactionRunner;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.transaction.UnexpectedRollbackException;
import org.springframework.transaction.support.ResourceHolderSupport;
import org.springframework.transaction.support.ResourceTransactionManager;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Runs the engine's transactional mode in a Spring-managed transaction, which {@link JdbcIdempotencyStore} and
 * the business code's {@code JdbcTemplate}, JPA or jOOQ calls on the same data source all join; for joined mode it
 * sees the caller's Spring-managed transaction (its own {@code @Transactional}, a listener container's).
 */
public final class SpringTransactionRunner implements TransactionRunner {

    private static final Logger log = LoggerFactory.getLogger(SpringTransactionRunner.class);

    private final TransactionTemplate transactionTemplate;

    public SpringTransactionRunner(TransactionTemplate transactionTemplate) {
        this.transactionTemplate = Objects.requireNonNull(transactionTemplate, "transactionTemplate");
    }

    /**
     * @throws IdempotencyConfigurationException if a transaction is already active: the engine must own the
     *     transaction, or rolling back a retryable outcome would doom the caller's transaction instead
     * @throws IdempotencyStoreException if the transaction cannot begin or commit (also when the database
     *     refuses the commit, say for a deferred constraint); nothing took effect
     * @throws TransactionRollbackException if the work marked the transaction rollback-only
     */
    @Override
    public <T> T inTransaction(Supplier<T> work) {
        AtomicBoolean workReturned = new AtomicBoolean();
        try {
            return transactionTemplate.execute(status -> {
                if (!status.isNewTransaction()) {
                    throw IdempotencyConfigurationException.of("transactions", "transactional mode must begin its "
                            + "own transaction, but one is already active; call the engine outside it");
                }
                T result = work.get();
                workReturned.set(true);
                return result;
            });
        } catch (UnexpectedRollbackException e) {
            throw new TransactionRollbackException("The transaction was marked rollback-only and rolled back", e);
        } catch (CannotCreateTransactionException | TransactionSystemException e) {
            throw cannotBeginOrCommit(e);
        } catch (DataAccessException e) {
            if (!workReturned.get()) {
                throw e; // the work's own failure, for the work's caller
            }
            // A commit the database refused, translated by a JdbcTransactionManager.
            throw cannotBeginOrCommit(e);
        }
    }

    /**
     * A transaction of this runner's transaction manager is active on this thread: its resource (the data source,
     * the entity manager factory) is bound, as it is while a {@code @Transactional} of that manager or a listener
     * container's transaction of it runs. A transaction of another manager (a Kafka transaction, another data
     * source's) does not count: the store could not join it.
     */
    @Override
    public boolean isTransactionActive() {
        if (transactionTemplate.getTransactionManager() instanceof ResourceTransactionManager manager) {
            return TransactionSynchronizationManager.isActualTransactionActive()
                    && TransactionSynchronizationManager.hasResource(manager.getResourceFactory());
        }
        return TransactionSynchronizationManager.isActualTransactionActive();
    }

    /**
     * Marks the resource of this runner's transaction manager (the data source's connection holder, the entity
     * manager's holder) rollback-only: its manager then rolls back at commit and says so with
     * {@code UnexpectedRollbackException}.
     */
    @Override
    public boolean markRollbackOnly() {
        if (transactionTemplate.getTransactionManager() instanceof ResourceTransactionManager manager
                && TransactionSynchronizationManager.getResource(manager.getResourceFactory())
                        instanceof ResourceHolderSupport holder) {
            holder.setRollbackOnly();
            return true;
        }
        return false;
    }

    /** Registered as a Spring transaction synchronization, which runs after the commit or the rollback. */
    @Override
    public void afterCompletion(CompletionCallback callback) {
        Objects.requireNonNull(callback, "callback");
        if (!TransactionSynchronizationManager.isSynchronizationActive()) {
            throw new IllegalStateException("No Spring transaction synchronization is active on this thread");
        }
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void afterCompletion(int status) {
                try {
                    callback.completed(status == STATUS_COMMITTED);
                } catch (RuntimeException e) {
                    // The transaction has ended; only a cache misses the outcome. Only the type: no database text.
                    log.warn("A callback after the transaction failed ({})", e.getClass().getSimpleName());
                }
            }
        });
    }

    /**
     * Only the codes, no cause: the database's message (a deferred constraint failing at commit names the
     * duplicate value) can quote row values, and a logged stack trace prints every cause's message.
     */
    private static IdempotencyStoreException cannotBeginOrCommit(RuntimeException e) {
        return new IdempotencyStoreException("The idempotency transaction could not begin or commit: "
                + SqlFailure.describe(e));
    }
}
