package dev.onceonly.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.function.Function;
import org.springframework.core.Ordered;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * A completion held back to travel with its transaction's commit, in one round trip: a first execution then
 * takes three round trips to the database instead of four (claim, business writes, completion with commit).
 * Bound to the transaction while it waits, so that any other statement of the store in the same transaction sends
 * it first and the store always reads what it wrote.
 *
 * <p>Only for a transaction whose commit is its connection's {@link Connection#commit()} and nothing else, which
 * {@link SpringTransactionRunner} marks with {@link #COMMITS_ON_CONNECTION} for a {@code DataSourceTransactionManager}:
 * a JPA transaction manager flushes the entity manager while it commits, after every synchronization has run, and
 * those writes must not land after the commit.
 */
final class DeferredCompletion implements TransactionSynchronization {

    /**
     * The resource key of the mark: bound, for as long as the runner's work runs, to the connection holder of its
     * transaction, which commits with its connection's commit alone. A transaction the work begins inside binds a
     * holder of its own, and is not marked.
     */
    static final Object COMMITS_ON_CONNECTION = new Object();

    private final Object key;
    private final Connection connection;
    private final ConnectionSource.HeldStatement send;
    private final Function<SQLException, RuntimeException> failure;
    private boolean sent;

    private DeferredCompletion(Object key, Connection connection, ConnectionSource.HeldStatement send,
            Function<SQLException, RuntimeException> failure) {
        this.key = key;
        this.connection = connection;
        this.send = send;
        this.failure = failure;
    }

    /**
     * Holds {@code send} back until the commit of the transaction {@code connection} belongs to, if the transaction
     * of {@code dataSource} is the marked one; returns whether it did.
     *
     * @param key the store's own key for what it holds back in a transaction
     * @param failure what the commit throws when sending fails: the transaction then rolls back
     */
    static boolean holdUntilCommit(Object dataSource, Object key, Connection connection,
            ConnectionSource.HeldStatement send,
            Function<SQLException, RuntimeException> failure) throws SQLException {
        Object marked = TransactionSynchronizationManager.getResource(COMMITS_ON_CONNECTION);
        if (marked == null || marked != TransactionSynchronizationManager.getResource(dataSource)
                || !TransactionSynchronizationManager.isSynchronizationActive()) {
            return false;
        }
        sendHeld(key);
        DeferredCompletion held = new DeferredCompletion(key, connection, send, failure);
        TransactionSynchronizationManager.bindResource(key, held);
        TransactionSynchronizationManager.registerSynchronization(held);
        return true;
    }

    /** Sends, without the commit, what the store holds back in the current transaction, if anything. */
    static void sendHeld(Object key) throws SQLException {
        if (TransactionSynchronizationManager.getResource(key) instanceof DeferredCompletion held) {
            TransactionSynchronizationManager.unbindResource(key);
            held.sendOnce(false);
        }
    }

    private void sendOnce(boolean withCommit) throws SQLException {
        if (!sent) {
            sent = true;
            send.send(connection, withCommit);
        }
    }

    @Override
    public void beforeCommit(boolean readOnly) {
        try {
            sendOnce(true);
        } catch (SQLException e) {
            throw failure.apply(e);
        }
    }

    /** Last, after every other synchronization's writes: the commit goes with it. */
    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }

    @Override
    public void afterCompletion(int status) {
        if (TransactionSynchronizationManager.getResource(key) == this) {
            TransactionSynchronizationManager.unbindResource(key);
        }
    }
}
