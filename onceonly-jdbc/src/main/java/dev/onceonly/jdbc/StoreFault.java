package dev.onceonly.jdbc;

import java.sql.SQLException;

/**
 * A fault the store found itself (a row it cannot use, endless races), as opposed to one the database reported.
 * Its message is the store's own and safe to show; a database's message never is.
 */
final class StoreFault extends SQLException {

    StoreFault(String message) {
        super(message);
    }
}
