package dev.onceonly.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.IdempotentResult;
import dev.onceonly.RequestInProgressException;
import dev.onceonly.spi.RecordState;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The network between the instances and PostgreSQL slowed and cut (issue 39), through a {@link FaultProxy}: every
 * statement's answer 50, 200 or 1,000 ms late under concurrent load of two instances (leased, transactional and
 * asynchronous), and one instance's connections blackholed for longer than a lease. Each test counts effects per
 * key (1) and answers per key (the key's one result).
 */
@Timeout(180)
class PostgresNetworkFaultsIT {

    private static final String EFFECTS = "onceonly_it_network_effect";

    private static FaultProxy proxy;
    private static HikariDataSource throughProxy;

    @BeforeAll
    static void startProxy() throws Exception {
        new JdbcTemplate(TestDatabases.postgres()).execute("CREATE TABLE IF NOT EXISTS " + EFFECTS
                + " (idem_key varchar(255) NOT NULL)");
        // The database the other tests use (onceonly.test.postgres.url), reached through the proxy.
        URI database = URI.create(TestDatabases.postgresUrl().substring("jdbc:".length()));
        proxy = FaultProxy.to(database.getHost(), database.getPort() < 0 ? 5432 : database.getPort());
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:postgresql://127.0.0.1:" + proxy.port() + database.getRawPath()
                + (database.getRawQuery() == null ? "" : "?" + database.getRawQuery()));
        // A test that regresses fails rather than hangs; the blackholes below are shorter.
        config.addDataSourceProperty("socketTimeout", "60");
        config.setMaximumPoolSize(24);
        config.setPoolName("onceonly-it-through-fault-proxy");
        throughProxy = new HikariDataSource(config);
    }

    @AfterEach
    void healTheNetwork() {
        proxy.latency(Duration.ZERO);
        proxy.restore();
    }

    @AfterAll
    static void stopProxy() throws Exception {
        throughProxy.close();
        proxy.close();
    }

    @ParameterizedTest(name = "{0}, {1} ms")
    @CsvSource({"leased, 50", "leased, 200", "leased, 1000", "transactional, 50", "transactional, 200",
        "transactional, 1000"})
    void concurrentRequestsOfTwoInstancesOnASlowNetworkTakeEffectOncePerKey(String mode, int latencyMillis)
            throws Exception {
        proxy.latency(Duration.ofMillis(latencyMillis));
        List<IdempotencyEngine> instances = mode.equals("leased")
                ? List.of(leased(throughProxy), leased(throughProxy))
                : List.of(transactional(throughProxy), transactional(throughProxy));
        List<IdempotencyScope> keys = newScopes(latencyMillis < 1000 ? 8 : 4);
        JdbcTemplate jdbc = new JdbcTemplate(throughProxy);

        Map<IdempotencyScope, Set<String>> answers = ConcurrentCopies.send(instances, keys, 4, fingerprint(),
                key -> attempt -> {
                    // In transactional mode the effect commits or rolls back with the claim and the outcome.
                    jdbc.update("INSERT INTO " + EFFECTS + " (idem_key) VALUES (?)", key.key().value());
                    return "effect of " + key.key().value();
                });

        assertThat(keys).allSatisfy(key -> {
            assertThat(effects(key)).as("effects of one key").isEqualTo(1);
            assertThat(answers.get(key)).as("answers of one key").containsExactly("effect of " + key.key().value());
        });
    }

    /**
     * Asynchronous operations on the slow network: every key submitted four times at once over two instances, then
     * resumed by two workers at once (a task that db-scheduler hands out twice): each operation runs once and ends
     * with its outcome.
     */
    @ParameterizedTest(name = "{0} ms")
    @ValueSource(ints = {50, 200, 1000})
    void asynchronousOperationsOfTwoInstancesOnASlowNetworkRunOncePerKey(int latencyMillis) throws Exception {
        proxy.latency(Duration.ofMillis(latencyMillis));
        List<IdempotencyEngine> instances = List.of(transactional(throughProxy), transactional(throughProxy));
        List<IdempotencyScope> keys = newScopes(latencyMillis < 1000 ? 8 : 4);
        JdbcTemplate jdbc = new JdbcTemplate(throughProxy);
        Map<IdempotencyScope, IdempotencyScope> queued = new ConcurrentHashMap<>();
        List<Callable<Void>> submissions = new ArrayList<>();
        List<Callable<Void>> workers = new ArrayList<>();
        for (IdempotencyScope key : keys) {
            for (int copy = 0; copy < 4; copy++) {
                IdempotencyEngine instance = instances.get(copy % 2);
                submissions.add(() -> {
                    try {
                        instance.submit(key, fingerprint(), new TextCodec(), stored -> queued.put(key, stored));
                    } catch (RequestInProgressException inProgress) {
                        // a duplicate, while the first submission commits
                    }
                    return null;
                });
            }
            for (IdempotencyEngine instance : instances) {
                workers.add(() -> {
                    instance.resume(queued.get(key), new TextCodec(), attempt -> {
                        jdbc.update("INSERT INTO " + EFFECTS + " (idem_key) VALUES (?)", key.key().value());
                        return "effect of " + key.key().value();
                    });
                    return null;
                });
            }
        }

        ConcurrentCopies.inParallel(submissions);
        ConcurrentCopies.inParallel(workers);

        JdbcIdempotencyStore store = jdbcStore(TestDatabases.postgres());
        assertThat(keys).allSatisfy(key -> {
            assertThat(effects(key)).as("effects of one key").isEqualTo(1);
            assertThat(store.find(key).orElseThrow().state()).isEqualTo(RecordState.SUCCEEDED);
        });
    }

    /**
     * The instance running an attempt loses its network for longer than the lease: another instance takes the key
     * over and stores its outcome; when the network heals, the first attempt's outcome is refused and its caller
     * gets the successor's. Both attempts used the same downstream key, so the system they call takes effect once.
     */
    @Test
    void leasedAttemptCutOffLongerThanItsLeaseIsTakenOverAndBothCallersGetOneAnswer() throws Exception {
        Duration lease = Duration.ofSeconds(2);
        IdempotencyEngine cutOff = leased(throughProxy).toBuilder().leaseDuration(lease).build();
        IdempotencyEngine other = leased(TestDatabases.postgres()).toBuilder().leaseDuration(lease).build();
        IdempotencyScope scope = newScopes(1).getFirst();
        Set<String> downstreamKeys = ConcurrentHashMap.newKeySet();
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);

        CompletableFuture<IdempotentResult<String>> first = CompletableFuture.supplyAsync(() ->
                cutOff.execute(scope, fingerprint(), new TextCodec(), attempt -> {
                    downstreamKeys.add(attempt.downstreamKey("charge"));
                    running.countDown();
                    awaitQuietly(finish);
                    return "first attempt";
                }));
        assertThat(running.await(30, TimeUnit.SECONDS)).isTrue();
        proxy.blackhole();
        Thread.sleep(lease.plusSeconds(1));

        IdempotentResult<String> takenOver = other.execute(scope, fingerprint(), new TextCodec(), attempt -> {
            downstreamKeys.add(attempt.downstreamKey("charge"));
            return "successor";
        });
        finish.countDown();
        Thread.sleep(500);
        proxy.restore();

        assertThat(takenOver).isEqualTo(new IdempotentResult<>("successor", false));
        assertThat(first.get(60, TimeUnit.SECONDS).value()).isEqualTo("successor");
        assertThat(downstreamKeys).hasSize(1);
        assertThat(jdbcStore(TestDatabases.postgres()).find(scope).orElseThrow().state())
                .isEqualTo(RecordState.SUCCEEDED);
    }

    /**
     * The instance running a transactional attempt loses its network: its transaction holds the key, so a
     * duplicate elsewhere is refused as in progress (with cause) and never runs; when the network heals the
     * attempt commits, and the duplicate's retry replays it.
     */
    @Test
    void transactionalAttemptCutOffHoldsItsKeyUntilTheNetworkHealsAndRunsOnce() throws Exception {
        IdempotencyEngine cutOff = transactional(throughProxy);
        IdempotencyEngine other = transactional(TestDatabases.postgres());
        IdempotencyScope scope = newScopes(1).getFirst();
        JdbcTemplate jdbc = new JdbcTemplate(throughProxy);
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);

        CompletableFuture<IdempotentResult<String>> first = CompletableFuture.supplyAsync(() ->
                cutOff.execute(scope, fingerprint(), new TextCodec(), attempt -> {
                    jdbc.update("INSERT INTO " + EFFECTS + " (idem_key) VALUES (?)", scope.key().value());
                    running.countDown();
                    awaitQuietly(finish);
                    return "first attempt";
                }));
        assertThat(running.await(30, TimeUnit.SECONDS)).isTrue();
        proxy.blackhole();

        finish.countDown();
        // The work is done; its commit waits behind the partition, and the key stays held until it arrives.
        Thread.sleep(500);
        assertThatThrownBy(() -> other.execute(scope, fingerprint(), new TextCodec(), attempt -> "duplicate ran"))
                .isInstanceOf(RequestInProgressException.class);
        proxy.restore();

        assertThat(first.get(60, TimeUnit.SECONDS)).isEqualTo(new IdempotentResult<>("first attempt", false));
        assertThat(other.execute(scope, fingerprint(), new TextCodec(), attempt -> "duplicate ran"))
                .isEqualTo(new IdempotentResult<>("first attempt", true));
        assertThat(effects(scope)).isEqualTo(1);
    }

    private static IdempotencyEngine leased(DataSource dataSource) {
        return IdempotencyEngine.builder(jdbcStore(dataSource)).build();
    }

    private static IdempotencyEngine transactional(DataSource dataSource) {
        return IdempotencyEngine.builder(jdbcStore(dataSource)).transactions(new SpringTransactionRunner(
                new TransactionTemplate(new DataSourceTransactionManager(dataSource)))).build();
    }

    private static JdbcIdempotencyStore jdbcStore(DataSource dataSource) {
        return JdbcIdempotencyStore.create(dataSource, new PostgresDialect());
    }

    private static int effects(IdempotencyScope scope) {
        Integer count = new JdbcTemplate(TestDatabases.postgres()).queryForObject("SELECT count(*) FROM " + EFFECTS
                + " WHERE idem_key = ?", Integer.class, scope.key().value());
        return count == null ? 0 : count;
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            if (!latch.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("never released");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static List<IdempotencyScope> newScopes(int count) {
        List<IdempotencyScope> scopes = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            scopes.add(IdempotencyScope.of("network", "pay", IdempotencyKey.of(UUID.randomUUID().toString())));
        }
        return scopes;
    }

    private static Fingerprint fingerprint() {
        return Fingerprint.builder().method("POST").route("/network").build();
    }
}
