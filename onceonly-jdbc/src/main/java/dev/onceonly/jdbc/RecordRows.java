package dev.onceonly.jdbc;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.StoredResponse;
import dev.onceonly.spi.IdempotencyRecord;
import dev.onceonly.spi.RecordState;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/** Turns a row of {@link JdbcDialect#RECORD_COLUMNS} into a record, or refuses it. */
final class RecordRows {

    private RecordRows() {
    }

    /** The key of the row, refused like a corrupt record if it is no valid key. */
    static IdempotencyKey key(ResultSet row) throws SQLException {
        try {
            return IdempotencyKey.of(row.getString("idem_key"));
        } catch (RuntimeException e) {
            throw corrupt(e);
        }
    }

    /** The state of the row, or {@code null} if it is none OnceOnly knows. */
    static @Nullable RecordState knownState(ResultSet row) throws SQLException {
        String state = row.getString("state");
        for (RecordState known : RecordState.values()) {
            if (known.name().equals(state)) {
                return known;
            }
        }
        return null;
    }

    /** Only the type: the message may quote the stored value. */
    private static StoreFault corrupt(RuntimeException e) {
        return new StoreFault("the stored record is corrupt (" + e.getClass().getSimpleName() + ")");
    }

    /**
     * Reads the row as the record of {@code scope}, failing closed: a row of another scope (which a database
     * comparing the scope columns loosely may return) or a row that breaks the record's rules is never used.
     */
    static IdempotencyRecord read(JdbcDialect dialect, IdempotencyScope scope, ResultSet row) throws SQLException {
        if (!scope.owner().equals(row.getString("owner")) || !scope.operation().equals(row.getString("operation"))
                || !scope.key().value().equals(row.getString("idem_key"))) {
            throw new StoreFault("the database returned the row of another scope; the scope columns must "
                    + "compare exactly (on MariaDB apply the V2 migration: a NO PAD binary collation)");
        }
        try {
            RecordState state = RecordState.valueOf(row.getString("state"));
            StoredResponse response = null;
            if (state.isTerminal()) {
                byte[] body = row.getBytes("response_body");
                // A NULL status reads as 0: StoredResponse.NO_STATUS, an outcome that is not an HTTP response.
                response = StoredResponse.of(row.getInt("http_status"),
                        HeaderLines.decode(row.getString("response_headers")), body == null ? new byte[0] : body,
                        row.getString("resource_id"));
            }
            return new IdempotencyRecord(scope, Fingerprint.ofDigest(row.getBytes("fingerprint")), state,
                    row.getInt("attempt"), row.getInt("failures"), dialect.getInstant(row, "lease_expires_at"),
                    dialect.getInstant(row, "next_attempt_at"), response,
                    Objects.requireNonNull(dialect.getInstant(row, "created_at")),
                    Objects.requireNonNull(dialect.getInstant(row, "updated_at")),
                    Objects.requireNonNull(dialect.getInstant(row, "expires_at")));
        } catch (IllegalArgumentException | IllegalStateException | NullPointerException e) {
            throw corrupt(e);
        }
    }
}
