package dev.onceonly.example.accounts;

import dev.onceonly.example.accounts.DebitResult.Debited;
import dev.onceonly.example.accounts.DebitResult.InsufficientFunds;
import dev.onceonly.example.accounts.DebitResult.StaleVersion;
import dev.onceonly.example.accounts.DebitResult.UnknownAccount;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;

/**
 * Reads and debits accounts, always within the caller's tenant. Writes join the transaction of the idempotent
 * request around them.
 */
@Service
public class AccountService {

    private static final String SELECT = "SELECT id, currency, balance, version FROM accounts"
            + " WHERE id = ? AND tenant = ?";

    private final JdbcClient jdbc;

    public AccountService(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    public Optional<Account> find(String tenant, long accountId) {
        return jdbc.sql(SELECT)
                .params(accountId, tenant)
                .query((row, rowNum) -> new Account(row.getLong("id"), row.getString("currency"),
                        row.getLong("balance"), row.getLong("version")))
                .optional();
    }

    /**
     * Takes {@code amount} if the account is at {@code expectedVersion} and covers it.
     *
     * <ol>
     *   <li>One conditional {@code UPDATE} checks version and balance and writes, atomically: no lock is held
     *       between a read and the write, and of two debits expecting the same version exactly one applies.</li>
     *   <li>Only when it changed nothing, a read tells why: no such account in the tenant, another version, or
     *       too little money. A version that still matches then (the other causes ruled out) can only mean a
     *       debit that changed the row meanwhile and rolled back; it is answered as stale too, and the client
     *       reads again.</li>
     * </ol>
     */
    public DebitResult debit(String tenant, long accountId, long amount, long expectedVersion) {
        int updated = jdbc.sql("UPDATE accounts SET balance = balance - ?, version = version + 1"
                        + " WHERE id = ? AND tenant = ? AND version = ? AND balance >= ?")
                .params(amount, accountId, tenant, expectedVersion, amount)
                .update();
        Optional<Account> account = find(tenant, accountId);
        if (account.isEmpty()) {
            return new UnknownAccount();
        }
        Account current = account.get();
        if (updated == 1) {
            return new Debited(current);
        }
        if (current.version() == expectedVersion && current.balance() < amount) {
            return new InsufficientFunds(current.balance());
        }
        return new StaleVersion(current.version());
    }
}
