package dev.onceonly.jdbc;

/** {@link HeldRecordTests} on PostgreSQL, which both PostgreSQL pools (with and without auto-commit) run. */
interface PostgresHeldRecordTests extends HeldRecordTests {

    @Override
    default String sessionIdSql() {
        return "SELECT pg_backend_pid()";
    }

    @Override
    default String waitersBlockedBySql() {
        return TestDatabases.POSTGRES_WAITERS_BLOCKED_BY;
    }
}
