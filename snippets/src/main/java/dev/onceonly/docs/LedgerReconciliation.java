package dev.onceonly.docs;

import dev.onceonly.redis.RedisLocks;
import java.time.Duration;
import org.springframework.jdbc.core.JdbcTemplate;

class LedgerReconciliation {

    private final RedisLocks locks;
    private final JdbcTemplate jdbc;

    LedgerReconciliation(RedisLocks locks, JdbcTemplate jdbc) {
        this.locks = locks;
        this.jdbc = jdbc;
    }

    void reconcile(String accountId, long balance) {
        try (RedisLocks.Lock lock = locks.acquire("reconcile:" + accountId, Duration.ofSeconds(30))) {
            // the ledger keeps the largest token it has seen and refuses smaller ones
            jdbc.update("UPDATE ledger SET fence = ?, balance = ? WHERE account = ? AND fence < ?",
                    lock.fencingToken(), balance, accountId, lock.fencingToken());
        }
    }
}
