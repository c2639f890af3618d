package dev.onceonly.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.spi.ClaimResult;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.tck.IdempotencyStoreContract;
import java.time.Clock;
import org.junit.jupiter.api.Test;

class MariaDbIdempotencyStoreIT extends IdempotencyStoreContract {

    @Override
    protected IdempotencyStore createStore(Clock clock) {
        return JdbcIdempotencyStore.create(TestDatabases.mariaDb(), new MariaDbDialect());
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
}
