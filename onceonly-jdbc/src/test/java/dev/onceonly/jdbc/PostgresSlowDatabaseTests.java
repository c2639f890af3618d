package dev.onceonly.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.IdempotentResult;
import dev.onceonly.spi.ClaimRequest;
import dev.onceonly.spi.ClaimResult;
import dev.onceonly.spi.RecordState;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A slow database is not a held key (issue 39): on a table whose every insert takes 200 ms longer, or every insert
 * and update a second longer (a trigger that sleeps, as a disk stall or a synchronous standby makes it), a claim of
 * a key that nobody else holds is made, not refused as in progress, whatever its lock wait.
 */
@Timeout(60)
interface PostgresSlowDatabaseTests extends JdbcStoreFixture {

    String SLOW_TABLE = "onceonly_slow_insert_it";

    /** A table whose every insert and update takes a second longer. */
    String SLOWER_TABLE = "onceonly_slow_write_it";

    @BeforeEach
    default void createTablesWithSlowWrites() throws SQLException {
        try (Connection connection = dataSource().getConnection(); Statement sql = connection.createStatement()) {
            slowTable(sql, SLOW_TABLE, "INSERT", "0.2");
            slowTable(sql, SLOWER_TABLE, "INSERT OR UPDATE", "1");
            if (!connection.getAutoCommit()) {
                connection.commit();
            }
        }
    }

    private static void slowTable(Statement sql, String table, String events, String seconds) throws SQLException {
        sql.execute("CREATE TABLE IF NOT EXISTS " + table + " (LIKE " + JdbcIdempotencyStore.DEFAULT_TABLE
                + " INCLUDING ALL)");
        sql.execute("CREATE OR REPLACE FUNCTION " + table + "_sleep() RETURNS trigger LANGUAGE plpgsql"
                + " AS $$ BEGIN PERFORM pg_sleep(" + seconds + "); RETURN NEW; END $$");
        sql.execute("CREATE OR REPLACE TRIGGER " + table + "_sleep BEFORE " + events + " ON " + table
                + " FOR EACH ROW EXECUTE FUNCTION " + table + "_sleep()");
    }

    private JdbcIdempotencyStore slowStore() {
        return JdbcIdempotencyStore.create(dataSource(), dialect(), SLOW_TABLE);
    }

    @Test
    default void leasedWorkOnADatabaseWhoseEveryWriteTakesASecondLongerRunsOnceAndIsStored() {
        IdempotencyScope scope = newScope();
        AtomicInteger runs = new AtomicInteger();
        JdbcIdempotencyStore slower = JdbcIdempotencyStore.create(dataSource(), dialect(), SLOWER_TABLE);
        IdempotencyEngine engine = IdempotencyEngine.builder(slower).build();

        IdempotentResult<String> first = engine.execute(scope, fingerprint(), new TextCodec(),
                attempt -> "ran " + runs.incrementAndGet());

        assertThat(first).isEqualTo(new IdempotentResult<>("ran 1", false));
        assertThat(runs).hasValue(1);
        assertThat(slower.find(scope).orElseThrow().state()).isEqualTo(RecordState.SUCCEEDED);
    }

    @Test
    default void leasedClaimOfAFreshKeyOnASlowDatabaseIsMadeNotRefusedAsInProgress() {
        IdempotencyScope scope = newScope();
        Instant now = Instant.now();

        ClaimResult result = slowStore().claim(new ClaimRequest(scope, fingerprint(), now.plusSeconds(30),
                now.plusSeconds(3600), Duration.ZERO, false), now);

        assertThat(result).isInstanceOf(ClaimResult.Claimed.class);
    }

    @Test
    default void leasedWorkOfAFreshKeyOnASlowDatabaseRunsOnceAndIsStored() {
        IdempotencyScope scope = newScope();
        AtomicInteger runs = new AtomicInteger();
        IdempotencyEngine engine = IdempotencyEngine.builder(slowStore()).build();

        IdempotentResult<String> first = engine.execute(scope, fingerprint(), new TextCodec(),
                attempt -> "ran " + runs.incrementAndGet());
        IdempotentResult<String> replay = engine.execute(scope, fingerprint(), new TextCodec(),
                attempt -> "ran " + runs.incrementAndGet());

        assertThat(first).isEqualTo(new IdempotentResult<>("ran 1", false));
        assertThat(replay).isEqualTo(new IdempotentResult<>("ran 1", true));
        assertThat(runs).hasValue(1);
        assertThat(slowStore().find(scope).orElseThrow().state()).isEqualTo(RecordState.SUCCEEDED);
    }

    /**
     * Two engines (two instances) and eight threads send every key four times at once: every key takes effect once,
     * and every answer that is not "in progress" is the key's one result. Before, every claim was refused.
     */
    @Test
    default void concurrentLeasedRequestsOfTwoInstancesOnASlowDatabaseTakeEffectOncePerKey() throws Exception {
        List<IdempotencyEngine> instances = List.of(IdempotencyEngine.builder(slowStore()).build(),
                IdempotencyEngine.builder(slowStore()).build());
        List<IdempotencyScope> keys = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            keys.add(newScope());
        }
        Map<IdempotencyScope, AtomicInteger> effects = new ConcurrentHashMap<>();

        Map<IdempotencyScope, Set<String>> answers = ConcurrentCopies.send(instances, keys, 4, fingerprint(),
                key -> attempt -> "effect " + effects.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet());

        assertThat(keys).allSatisfy(key -> {
            assertThat(effects.get(key)).as("effects of one key").hasValue(1);
            assertThat(answers.get(key)).as("answers of one key").containsExactly("effect 1");
        });
    }

    private static IdempotencyScope newScope() {
        return new IdempotencyScope("slow-" + UUID.randomUUID(), "POST /payments",
                IdempotencyKey.of(UUID.randomUUID().toString()));
    }

    private static Fingerprint fingerprint() {
        return Fingerprint.builder().method("POST").route("/payments").component("body", "{}").build();
    }
}
