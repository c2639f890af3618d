package dev.onceonly.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.spi.ClaimRequest;
import dev.onceonly.spi.ClaimResult;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The store on a record table partitioned by owner (as a sharded deployment distributes it): a purge deletes the
 * rows it locked by their physical address, which two partitions can share; it must delete only the expired one.
 */
class PostgresPartitionedTableIT {

    private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");

    private final DataSource dataSource = TestDatabases.postgres();
    private final JdbcTemplate sql = new JdbcTemplate(dataSource);
    private final String table = "onceonly_partitioned_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);

    @BeforeEach
    void createPartitionedTable() {
        sql.execute("CREATE TABLE " + table + " (LIKE onceonly_record INCLUDING ALL) PARTITION BY HASH (owner)");
        sql.execute("CREATE TABLE " + table + "_p0 PARTITION OF " + table + " FOR VALUES WITH (MODULUS 2, REMAINDER 0)");
        sql.execute("CREATE TABLE " + table + "_p1 PARTITION OF " + table + " FOR VALUES WITH (MODULUS 2, REMAINDER 1)");
    }

    @AfterEach
    void dropTable() {
        sql.execute("DROP TABLE " + table);
    }

    @Test
    void purgeDeletesTheExpiredRowOnlyWhereTwoPartitionsHoldRowsAtTheSameAddress() {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.create(dataSource, new PostgresDialect(), table);
        IdempotencyScope expired = scope("expired-owner");
        IdempotencyScope live = scopeInTheOtherPartitionThan(store, expired);
        claim(store, expired, Duration.ofMinutes(1));
        claim(store, live, Duration.ofDays(1));
        assertThat(sql.queryForObject("SELECT count(DISTINCT ctid) FROM " + table, Long.class))
                .as("both first rows of their partitions, at one address").isEqualTo(1);

        int purged = store.purgeExpired(NOW.plus(Duration.ofHours(1)), 100);

        assertThat(purged).isEqualTo(1);
        assertThat(store.find(expired)).isEmpty();
        assertThat(store.find(live)).isPresent();
    }

    private IdempotencyScope scopeInTheOtherPartitionThan(JdbcIdempotencyStore store, IdempotencyScope other) {
        String otherPartition = partitionOf(other.owner());
        for (int i = 0; ; i++) {
            IdempotencyScope candidate = scope("live-owner-" + i);
            if (!partitionOf(candidate.owner()).equals(otherPartition)) {
                return candidate;
            }
        }
    }

    /** The partition a row of {@code owner} goes to, asked of PostgreSQL's own hash. */
    private String partitionOf(String owner) {
        return sql.queryForObject("SELECT CASE WHEN satisfies_hash_partition(?::regclass, 2, 0, ?::varchar)"
                + " THEN 'p0' ELSE 'p1' END", String.class, table, owner);
    }

    private static IdempotencyScope scope(String owner) {
        return new IdempotencyScope(owner, "create-order", IdempotencyKey.of(UUID.randomUUID().toString()));
    }

    private static void claim(JdbcIdempotencyStore store, IdempotencyScope scope, Duration retention) {
        ClaimRequest request = new ClaimRequest(scope, Fingerprint.builder().build(), NOW.plusSeconds(1),
                NOW.plus(retention), Duration.ofSeconds(5), false);
        assertThat(store.claim(request, NOW)).isInstanceOf(ClaimResult.Claimed.class);
    }
}
