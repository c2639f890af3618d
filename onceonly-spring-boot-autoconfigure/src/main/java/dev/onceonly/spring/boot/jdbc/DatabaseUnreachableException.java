package dev.onceonly.spring.boot.jdbc;

import dev.onceonly.jdbc.SqlFailure;

/**
 * The application's database did not answer OnceOnly's first connection (to choose its SQL dialect): not a setting
 * of OnceOnly's, but the {@code DataSource} it shares. Carries only the facts {@link SqlFailure} allows.
 */
final class DatabaseUnreachableException extends IllegalStateException {

    private final SqlFailure failure;

    DatabaseUnreachableException(SqlFailure failure) {
        super("OnceOnly could not connect to the application's database to choose its SQL dialect: " + failure);
        this.failure = failure;
    }

    SqlFailure failure() {
        return failure;
    }
}
