package dev.onceonly.jdbc;

import javax.sql.DataSource;

/** The database a JDBC store test runs on; the store-specific test interfaces build on it. */
interface JdbcStoreFixture {

    DataSource dataSource();

    JdbcDialect dialect();

    /** A store on the default table of {@link #dataSource()}. */
    default JdbcIdempotencyStore jdbcStore() {
        return JdbcIdempotencyStore.create(dataSource(), dialect());
    }
}
