package dev.onceonly.jdbc;

import dev.onceonly.IdempotencyConfigurationException;
import dev.onceonly.IdempotencyStoreException;
import dev.onceonly.TransactionRollbackException;
import dev.onceonly.TransactionRunner;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.IllegalTransactionStateException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.transaction.UnexpectedRollbackException;
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
    /** Joins a transaction of the same manager, and fails where there is none: never begins one. */
    private final TransactionTemplate joinOnly;
    /** Always begins a transaction, suspending the thread's own while it runs. */
    private final TransactionTemplate requiresNew;
    /** The manager, if all its commits do is its connection's commit; else {@code null}. */
    private final @Nullable DataSourceTransactionManager commitsOnConnection;

    public SpringTransactionRunner(TransactionTemplate transactionTemplate) {
        this.transactionTemplate = Objects.requireNonNull(transactionTemplate, "transactionTemplate");
        PlatformTransactionManager manager = Objects.requireNonNull(transactionTemplate.getTransactionManager(),
                "the template's transaction manager");
        this.joinOnly = new TransactionTemplate(manager);
        this.commitsOnConnection = commitsOnConnection(manager);
        this.joinOnly.setPropagationBehavior(TransactionDefinition.PROPAGATION_MANDATORY);
        this.requiresNew = new TransactionTemplate(manager);
        this.requiresNew.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
    }

    /**
     * {@code manager} if its commit is its connection's commit and nothing more: the data source transaction
     * managers exactly, not a subclass that may do more, nor a JPA manager, which flushes as it commits.
     */
    private static @Nullable DataSourceTransactionManager commitsOnConnection(PlatformTransactionManager manager) {
        return manager.getClass() == DataSourceTransactionManager.class
                || manager.getClass() == JdbcTransactionManager.class ? (DataSourceTransactionManager) manager : null;
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
                T result = commitsOnConnection == null ? work.get() : markedCommit(commitsOnConnection, work);
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
     * Marks the transaction as one whose commit is its connection's and nothing else's while the work runs, so
     * that the store may send its completion with the commit ({@link DeferredCompletion}); a manager with execution
     * listeners, which act between the synchronizations and the commit, is not. The mark of a runner whose work
     * this is comes back after it.
     */
    private <T> T markedCommit(DataSourceTransactionManager manager, Supplier<T> work) {
        Object holder = TransactionSynchronizationManager.getResource(
                Objects.requireNonNull(manager.getDataSource(), "the manager's data source"));
        if (holder == null || !manager.getTransactionExecutionListeners().isEmpty()) {
            return work.get();
        }
        Object outer = TransactionSynchronizationManager.unbindResourceIfPossible(
                DeferredCompletion.COMMITS_ON_CONNECTION);
        TransactionSynchronizationManager.bindResource(DeferredCompletion.COMMITS_ON_CONNECTION, holder);
        try {
            return work.get();
        } finally {
            TransactionSynchronizationManager.unbindResource(DeferredCompletion.COMMITS_ON_CONNECTION);
            if (outer != null) {
                TransactionSynchronizationManager.bindResource(DeferredCompletion.COMMITS_ON_CONNECTION, outer);
            }
        }
    }

    /**
     * {@code PROPAGATION_REQUIRES_NEW}, which Spring prescribes for a transaction begun in a callback after another
     * ended, whose resources are still bound to the thread.
     *
     * @throws IdempotencyStoreException if the transaction cannot begin or commit
     */
    @Override
    public <T> T inNewTransaction(Supplier<T> work) {
        try {
            return requiresNew.execute(status -> work.get());
        } catch (CannotCreateTransactionException | TransactionSystemException e) {
            throw cannotBeginOrCommit(e);
        }
    }

    /**
     * A transaction of this runner's transaction manager is active on this thread, as its manager sees it (a
     * {@code @Transactional} of that manager, a listener container's transaction of it). A transaction of another
     * manager (a Kafka transaction, another data source's), or a connection bound without a transaction, does not
     * count: the store could not join it.
     */
    @Override
    public boolean isTransactionActive() {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            return false;
        }
        try {
            joinOnly.executeWithoutResult(status -> { });
            return true;
        } catch (IllegalTransactionStateException none) {
            return false;
        }
    }

    /**
     * Marks the active transaction of this runner's manager rollback-only through the manager itself (a data
     * source's connection, a JPA entity transaction): it then rolls back at commit and says so with
     * {@code UnexpectedRollbackException}.
     */
    @Override
    public boolean markRollbackOnly() {
        try {
            joinOnly.executeWithoutResult(TransactionStatus::setRollbackOnly);
            return true;
        } catch (IllegalTransactionStateException none) {
            return false;
        }
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
