package dev.onceonly.spi;

/**
 * The fencing token of one attempt: its attempt number. Completing or releasing a record only succeeds while
 * the record still carries this attempt, so a stalled attempt whose lease was taken over cannot overwrite the
 * newer one.
 *
 * @param attempt the attempt number, 1 for the first claim
 */
public record LeaseToken(int attempt) {

    public LeaseToken {
        if (attempt < 1) {
            throw new IllegalArgumentException("attempt must be positive, but is " + attempt);
        }
    }
}
