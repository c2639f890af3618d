package dev.onceonly.spring.boot;

import dev.onceonly.IdempotencyConfigurationException;
import dev.onceonly.IdempotencyMode;
import dev.onceonly.TransactionRunner;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.util.ClassUtils;

/**
 * The engine's mode from {@code onceonly.mode} and the {@link TransactionRunner} beans. Transactional mode is
 * never lost silently: an ambiguous runner, transactional mode without one, and {@code auto} without one (with or
 * without a transaction manager: the JDBC configuration backs off for a store of the application's own) all stop
 * startup; leased mode is only ever chosen by name.
 *
 * @param mode the mode the engine is built with
 * @param runner the one runner, also for endpoints that choose transactional mode; {@code null} if none exists
 */
record EngineModeSelection(IdempotencyMode mode, @Nullable TransactionRunner runner) {

    private static final String TRANSACTION_MANAGER = "org.springframework.transaction.TransactionManager";

    static EngineModeSelection select(IdempotencyMode configured, ObjectProvider<TransactionRunner> runners,
            ListableBeanFactory beans) {
        TransactionRunner runner = runners.getIfUnique();
        String[] names = beans.getBeanNamesForType(TransactionRunner.class);
        if (runner == null && names.length > 1) {
            throw IdempotencyConfigurationException.of("TransactionRunner", names.length + " TransactionRunner "
                    + "beans exist (" + String.join(", ", names) + ") and OnceOnly cannot tell which one its store "
                    + "joins", "Keep one TransactionRunner bean, or mark the one for OnceOnly @Primary");
        }
        if (configured == IdempotencyMode.JOINED) {
            // The filter answers only after the commit, outside any transaction of the application's.
            throw IdempotencyConfigurationException.of("onceonly.mode", "joined mode runs in the caller's "
                    + "transaction, and HTTP requests have none when OnceOnly handles them", "Choose auto, "
                    + "transactional or leased; message consumers get joined mode from the inbox by themselves");
        }
        if (runner != null) {
            return new EngineModeSelection(configured == IdempotencyMode.AUTO ? IdempotencyMode.TRANSACTIONAL
                    : configured, runner);
        }
        return switch (configured) {
            case TRANSACTIONAL -> throw IdempotencyConfigurationException.of("onceonly.mode", "transactional mode "
                    + "needs a TransactionRunner bean, and none exists", "Add a DataSource and a transaction manager "
                    + "(the JDBC store then brings a runner), define a TransactionRunner bean whose transactions "
                    + "your store joins, or set onceonly.mode=leased");
            case AUTO -> {
                if (hasTransactionManager(beans)) {
                    throw IdempotencyConfigurationException.of("onceonly.mode", "the application has a transaction "
                            + "manager but no TransactionRunner bean (the JDBC store brings one only when OnceOnly "
                            + "configures the store itself), so mode auto cannot tell whether idempotent work "
                            + "should share its transactions", "Define a TransactionRunner bean whose transactions "
                            + "your IdempotencyStore joins, or set onceonly.mode=leased");
                }
                // Leased mode keeps a failed handler's writes, so it is never chosen for the application (issue 41:
                // a handler that failed after its insert left three rows for one key, and nothing said leased).
                throw IdempotencyConfigurationException.of("onceonly.mode", "mode auto (the default) found no "
                        + "TransactionRunner bean and no transaction manager, so idempotent work would run "
                        + "without a transaction; OnceOnly will not fall back to leased mode silently",
                        "For transactional mode (a request's writes and its key commit together, the safe "
                        + "default), give your DataSource a transaction manager (the JDBC store then brings a "
                        + "runner), or define a TransactionRunner bean whose transactions your IdempotencyStore "
                        + "joins. Or set onceonly.mode=leased if the work cannot share a transaction with its key "
                        + "(remote calls): a leased handler that fails keeps what it wrote, and its retry runs "
                        + "again");
            }
            case LEASED, JOINED -> new EngineModeSelection(IdempotencyMode.LEASED, null);
        };
    }

    private static boolean hasTransactionManager(ListableBeanFactory beans) {
        ClassLoader loader = EngineModeSelection.class.getClassLoader();
        return ClassUtils.isPresent(TRANSACTION_MANAGER, loader)
                && beans.getBeanNamesForType(ClassUtils.resolveClassName(TRANSACTION_MANAGER, loader)).length > 0;
    }
}
