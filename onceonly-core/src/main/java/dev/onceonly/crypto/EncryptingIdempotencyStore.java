package dev.onceonly.crypto;

import dev.onceonly.IdempotencyScope;
import dev.onceonly.IdempotencyStoreException;
import dev.onceonly.StoredResponse;
import dev.onceonly.spi.ClaimRequest;
import dev.onceonly.spi.ClaimResult;
import dev.onceonly.spi.Completion;
import dev.onceonly.spi.ForwardingIdempotencyStore;
import dev.onceonly.spi.IdempotencyRecord;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spi.LeaseToken;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Encrypts stored responses at rest: wraps any {@link IdempotencyStore} so that the body and headers of every
 * completed response reach it as AES-GCM ciphertext under the {@linkplain EncryptionKeys#activeKeyId() active
 * key}, and are decrypted again on every read with whichever readable key they name. Replays are byte-identical
 * to the first answer.
 *
 * <p>What stays plaintext: the scope, fingerprint, state, times, the status and the resource id. The resource id
 * is an audit field that logs and look-ups use; status and resource id are authenticated with the ciphertext, so
 * a changed value fails like altered ciphertext. Responses stored before encryption was switched on (without
 * the envelope's marker header) are read as they are, so switching it on loses no replays, unless the keys are
 * {@linkplain EncryptionKeys#refusingPlaintext() refusing plaintext}.
 *
 * <p>Fails closed: a response whose key is not in the ring, or that fails authentication (altered, or copied
 * from another record, as the scope is authenticated too), is an {@link IdempotencyStoreException}, so the
 * request is refused (503) rather than answered with garbage or with someone else's response. Messages name the
 * operation and key id, never key material.
 *
 * <p>Put it outside every layer that keeps responses (a cache in Redis, for instance), so those hold only
 * ciphertext. Thread-safe if the wrapped store is.
 */
public final class EncryptingIdempotencyStore extends ForwardingIdempotencyStore {

    private final EncryptionKeys keys;
    private final SecureRandom random = new SecureRandom();

    /**
     * @param delegate the store that holds the records
     * @param keys the active key to write with and every key to read with
     */
    public EncryptingIdempotencyStore(IdempotencyStore delegate, EncryptionKeys keys) {
        super(delegate);
        this.keys = Objects.requireNonNull(keys, "keys");
    }

    /** A {@link ClaimResult.Duplicate}'s response comes back decrypted. */
    @Override
    public ClaimResult claim(ClaimRequest request, Instant now) {
        ClaimResult result = delegate().claim(request, now);
        return result instanceof ClaimResult.Duplicate(IdempotencyRecord record)
                ? new ClaimResult.Duplicate(decrypted(request.scope(), record)) : result;
    }

    /** The response comes back decrypted. */
    @Override
    public Optional<IdempotencyRecord> find(IdempotencyScope scope) {
        return delegate().find(scope).map(record -> decrypted(scope, record));
    }

    /** The response is stored encrypted under the active key. */
    @Override
    public boolean complete(IdempotencyScope scope, LeaseToken token, Completion completion, Instant now) {
        return delegate().complete(scope, token, sealed(scope, completion), now);
    }

    @Override
    public boolean insertsFinished() {
        return delegate().insertsFinished();
    }

    /** The response is stored encrypted under the active key, as {@link #complete} stores it. */
    @Override
    public Insertion insertFinished(ClaimRequest request, Completion completion, Instant now) {
        return delegate().insertFinished(request, sealed(request.scope(), completion), now);
    }

    private Completion sealed(IdempotencyScope scope, Completion completion) {
        return new Completion(completion.state(), ResponseEnvelope.seal(completion.response(), scope,
                keys.activeKeyId(), keys.activeKey(), random), completion.expiresAt());
    }

    /**
     * Authenticated against the scope the caller asked for, as {@link #complete} sealed it, not the one the record
     * reports: a layer beneath may store the scope in another form.
     */
    private IdempotencyRecord decrypted(IdempotencyScope scope, IdempotencyRecord record) {
        StoredResponse response = record.response();
        if (response == null) {
            return record;
        }
        if (!response.isSealed()) {
            if (keys.plaintextReadable()) {
                return record;
            }
            throw new IdempotencyStoreException("the stored response of operation '" + scope.operation()
                    + "' is not encrypted, and plaintext responses are refused");
        }
        return record.withResponse(ResponseEnvelope.open(response, scope, keys));
    }

    @Override
    public String toString() {
        return "Encrypting" + delegate();
    }
}
