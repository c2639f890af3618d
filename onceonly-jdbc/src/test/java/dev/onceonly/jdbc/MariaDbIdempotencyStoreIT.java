package dev.onceonly.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.IdempotencyStoreException;
import dev.onceonly.spi.ClaimResult;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.tck.IdempotencyStoreContract;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

class MariaDbIdempotencyStoreIT extends IdempotencyStoreContract implements HeldRecordTests, StoreFailureTests,
        AuditModeTests, ClocksApartTests {

    @Override
    protected IdempotencyStore createStore(Clock clock) {
        return jdbcStore();
    }

    @Override
    public DataSource dataSource() {
        return TestDatabases.mariaDb();
    }

    @Override
    public JdbcDialect dialect() {
        return new MariaDbDialect();
    }

    @Override
    public String sessionIdSql() {
        return "SELECT CONNECTION_ID()";
    }

    @Override
    public String waitersBlockedBySql() {
        return TestDatabases.MARIADB_WAITERS_BLOCKED_BY;
    }

    @Override
    public List<String> createTablesLike(String table) {
        return List.of("CREATE TABLE " + table + " LIKE " + JdbcIdempotencyStore.DEFAULT_TABLE,
                "CREATE TABLE " + table + JdbcIdempotencyStore.AUDIT_SUFFIX + " LIKE "
                        + JdbcIdempotencyStore.DEFAULT_TABLE + JdbcIdempotencyStore.AUDIT_SUFFIX);
    }

    @Override
    public List<String> tableWithUniqueResourceIds(String table) {
        return List.of("CREATE TABLE IF NOT EXISTS " + table + " LIKE " + JdbcIdempotencyStore.DEFAULT_TABLE,
                "ALTER TABLE " + table + " ADD UNIQUE INDEX IF NOT EXISTS " + table + "_resource_id (resource_id)");
    }

    @Test
    void keysThatDifferOnlyInCaseAreDifferentRecords() {
        IdempotencyScope lower = newScope();
        IdempotencyScope upper = new IdempotencyScope(lower.owner(), lower.operation(),
                IdempotencyKey.of(lower.key().value().toUpperCase()));

        store.claim(claimRequest(lower, fingerprint("a")), now());
        ClaimResult other = store.claim(claimRequest(upper, fingerprint("b")), now());

        assertThat(other).isInstanceOf(ClaimResult.Claimed.class);
    }

    // issue 8: utf8mb4_bin is PAD SPACE and let "bob" and "bob " share one record.
    @Test
    void ownersThatDifferOnlyInATrailingSpaceAreTwoRecords() {
        IdempotencyScope bob = new IdempotencyScope("bob-" + UUID.randomUUID(), "create-order",
                IdempotencyKey.of(UUID.randomUUID().toString()));
        IdempotencyScope bobWithSpace = new IdempotencyScope(bob.owner() + " ", bob.operation(), bob.key());
        store.complete(bob, claim(bob, fingerprint("a")), succeeded(simpleResponse()), now());

        ClaimResult other = store.claim(claimRequest(bobWithSpace, fingerprint("b")), now());

        assertClaimed(other, 1);
        assertThat(store.find(bob).orElseThrow().fingerprint()).isEqualTo(fingerprint("a"));
        assertThat(store.find(bobWithSpace).orElseThrow().fingerprint()).isEqualTo(fingerprint("b"));
    }

    /** The state column's CHECK compares case-insensitively on MariaDB, so it lets a state in lower case in. */
    @Test
    void recordWithAnUnknownStateIsAStoreError() throws SQLException {
        IdempotencyScope scope = StoreFailureTests.newFailureScope();
        insertRow(scope, "succeeded", 201, null);

        assertThatThrownBy(() -> store.find(scope)).isInstanceOf(IdempotencyStoreException.class)
                .hasMessageContaining("corrupt");
    }

    /** On a table whose scope columns are still V1's (PAD SPACE), the database returns "bob"'s row for "bob ". */
    @Test
    void rowOfAnotherScopeThatTheDatabaseMatchesIsAStoreErrorNotARecord() throws Exception {
        String table = "onceonly_it_pad_space";
        createTableAsV1Did(table);
        IdempotencyStore padded = JdbcIdempotencyStore.create(TestDatabases.mariaDb(), new MariaDbDialect(), table);
        IdempotencyScope bob = new IdempotencyScope("bob-" + UUID.randomUUID(), "create-order",
                IdempotencyKey.of(UUID.randomUUID().toString()));
        IdempotencyScope bobWithSpace = new IdempotencyScope(bob.owner() + " ", bob.operation(), bob.key());
        padded.claim(claimRequest(bob, fingerprint("a")), now());

        assertThatThrownBy(() -> padded.find(bobWithSpace)).isInstanceOf(IdempotencyStoreException.class)
                .hasMessageContaining("another scope");
        assertThatThrownBy(() -> padded.claim(claimRequest(bobWithSpace, fingerprint("a")), now()))
                .isInstanceOf(IdempotencyStoreException.class).hasMessageContaining("another scope");
        assertThat(padded.find(bob)).isPresent();
    }

    /** The table as migrations V1 and V3 leave it, without V2's collation. */
    private static void createTableAsV1Did(String table) throws IOException, SQLException {
        try (Connection connection = TestDatabases.mariaDb().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS " + table);
            statement.execute(migration("V1__create_onceonly_record.sql").replace("CREATE TABLE onceonly_record",
                    "CREATE TABLE " + table));
            statement.execute(migration("V3__retry_count_and_backoff.sql").replace("ALTER TABLE onceonly_record",
                    "ALTER TABLE " + table));
        }
    }

    private static String migration(String name) throws IOException {
        try (InputStream in = MariaDbIdempotencyStoreIT.class.getResourceAsStream(
                "/dev/onceonly/jdbc/schema/mariadb/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
