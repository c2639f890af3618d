package dev.onceonly.jdbc;

import java.sql.SQLException;
import java.util.List;
import java.util.function.Function;
import javax.sql.DataSource;
import org.springframework.core.Ordered;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * A completion held back to travel with its transaction's commit, in one round trip: a first execution then
 * takes three round trips to the database instead of four (claim, business writes, completion with commit).
 * Bound to the transaction while it waits, so that any statement of a store in the same transaction sends it first
 * and a store always reads what it wrote; a transaction holds one completion at a time, so one commit.
 *
 * <p>Only for a transaction whose commit is its connection's {@link java.sql.Connection#commit()} and nothing else,
 * which {@link SpringTransactionRunner} marks with {@link #COMMITS_ON_CONNECTION} for a data source transaction
 * manager: a JPA transaction manager flushes the entity manager while it commits, after every synchronization has
 * run, and those writes must not land after the commit. Even there, the commit goes with the completion only if no
 * synchronization that runs after it at commit writes ({@code beforeCommit}); otherwise the completion is sent on its
 * own and the manager commits. {@code beforeCompletion}, which runs after it too, is for cleanup only.
 */
final class DeferredCompletion implements TransactionSynchronization {

    /**
     * The resource key of the mark: bound, for as long as the runner's work runs, to the connection holder of its
     * transaction, which commits with its connection's commit alone. A transaction the work begins inside binds a
     * holder of its own, and is not marked.
     */
    static final Object COMMITS_ON_CONNECTION = new Object();

    /** The resource key of the completion the current transaction holds back, whichever store holds it. */
    private static final Object HELD = new Object();

    /** Whether a synchronization class has a {@code beforeCommit} of its own, which may write. */
    private static final ClassValue<Boolean> ACTS_BEFORE_COMMIT = new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
            try {
                return type.getMethod("beforeCommit", boolean.class).getDeclaringClass()
                        != TransactionSynchronization.class;
            } catch (NoSuchMethodException impossible) {
                return true;
            }
        }
    };

    private final ConnectionHolder holder;
    private final ConnectionSource.HeldStatement statement;
    private final Function<SQLException, RuntimeException> failure;
    private boolean sent;

    private DeferredCompletion(ConnectionHolder holder, ConnectionSource.HeldStatement statement,
            Function<SQLException, RuntimeException> failure) {
        this.holder = holder;
        this.statement = statement;
        this.failure = failure;
    }

    /**
     * Holds {@code statement} back until the commit of the transaction of {@code dataSource}, if that transaction
     * is the marked one; returns whether it did. A completion held before is sent first, without the commit.
     *
     * @param failure what the commit throws when sending fails: the transaction then rolls back
     */
    static boolean holdUntilCommit(DataSource dataSource, ConnectionSource.HeldStatement statement,
            Function<SQLException, RuntimeException> failure) throws SQLException {
        Object marked = TransactionSynchronizationManager.getResource(COMMITS_ON_CONNECTION);
        if (!(marked instanceof ConnectionHolder holder) || marked != TransactionSynchronizationManager.getResource(
                dataSource) || !TransactionSynchronizationManager.isSynchronizationActive()) {
            return false;
        }
        sendHeld();
        DeferredCompletion held = new DeferredCompletion(holder, statement, failure);
        TransactionSynchronizationManager.bindResource(HELD, held);
        TransactionSynchronizationManager.registerSynchronization(held);
        return true;
    }

    /** Sends, without the commit, the completion the current transaction holds back, if any. */
    static void sendHeld() throws SQLException {
        if (TransactionSynchronizationManager.getResource(HELD) instanceof DeferredCompletion held) {
            held.release();
            held.send(false);
        }
    }

    private void send(boolean withCommit) throws SQLException {
        if (sent) {
            return;
        }
        sent = true;
        try {
            statement.send(holder.getConnection(), withCommit);
        } catch (SQLException | RuntimeException e) {
            // The completion is lost: whoever catches this, the transaction must not commit without it.
            holder.setRollbackOnly();
            throw e;
        }
    }

    @Override
    public void beforeCommit(boolean readOnly) {
        try {
            send(commitsLast());
        } catch (SQLException e) {
            throw failure.apply(e);
        }
    }

    /** Whether no synchronization runs after this one at commit with a {@code beforeCommit} that may write. */
    private boolean commitsLast() {
        List<TransactionSynchronization> all = TransactionSynchronizationManager.getSynchronizations();
        for (int i = all.indexOf(this) + 1; i < all.size(); i++) {
            if (ACTS_BEFORE_COMMIT.get(all.get(i).getClass())) {
                return false;
            }
        }
        return true;
    }

    /** Last, after every other synchronization's writes: the commit goes with it. */
    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }

    /** A transaction begun inside this one must not send this completion, nor find it held. */
    @Override
    public void suspend() {
        release();
    }

    @Override
    public void resume() {
        if (!sent && !TransactionSynchronizationManager.hasResource(HELD)) {
            TransactionSynchronizationManager.bindResource(HELD, this);
        }
    }

    /**
     * Before the commit's or rollback's other callbacks, which may begin transactions of their own: a completion
     * not sent by now rolls back with its transaction.
     */
    @Override
    public void beforeCompletion() {
        release();
    }

    @Override
    public void afterCompletion(int status) {
        release();
    }

    private void release() {
        if (TransactionSynchronizationManager.getResource(HELD) == this) {
            TransactionSynchronizationManager.unbindResource(HELD);
        }
    }
}
