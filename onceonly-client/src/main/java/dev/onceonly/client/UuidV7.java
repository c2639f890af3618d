package dev.onceonly.client;

import java.security.SecureRandom;
import java.time.Clock;
import java.util.UUID;
import java.util.random.RandomGenerator;

/**
 * Generates version 7 UUIDs (RFC 9562, 5.7), the keys the clients put on calls that have none.
 *
 * <p>Why version 7: 62 random bits per key (from {@link SecureRandom}, so keys of other callers cannot be predicted)
 * behind a millisecond timestamp, so a server's key index grows at its end instead of at random pages. Why by hand:
 * the JDK only makes version 4 ({@link UUID#randomUUID()}), the maintained library for it
 * ({@code com.github.f4b6a3:uuid-creator}) is not among the artifacts this project may use, and the need is a
 * few lines of bit layout.
 *
 * <p>How it works: 48 bits of Unix milliseconds, the version, 12 bits of sequence, the variant, 62 random bits.
 * The sequence starts at a random value below 2048 in each new millisecond and counts up within it (RFC 9562,
 * 6.2, method 1), so one generator's UUIDs are strictly increasing even within a millisecond or when the clock
 * steps back; when the sequence runs out, the timestamp moves one millisecond ahead of the clock.
 *
 * <p>Thread safe.
 */
public final class UuidV7 {

    private static final int SEQUENCE_BITS = 12;
    private static final int MAX_SEQUENCE = (1 << SEQUENCE_BITS) - 1;
    // Half the range: a millisecond's sequence has at least 2048 steps of headroom before it runs out.
    private static final int SEQUENCE_SEED_BOUND = 1 << (SEQUENCE_BITS - 1);

    private final Clock clock;
    private final RandomGenerator random;
    private long lastMillis = Long.MIN_VALUE;
    private int sequence;

    /** A generator on the system clock and a {@link SecureRandom}. */
    public UuidV7() {
        this(Clock.systemUTC(), new SecureRandom());
    }

    UuidV7(Clock clock, RandomGenerator random) {
        this.clock = clock;
        this.random = random;
    }

    /**
     * The next UUID, greater than every one this generator made before.
     *
     * @return a version 7, variant 2 UUID
     */
    public UUID next() {
        long millis;
        int seq;
        synchronized (this) {
            long now = clock.millis();
            if (now > lastMillis) {
                lastMillis = now;
                sequence = random.nextInt(SEQUENCE_SEED_BOUND);
            } else if (sequence < MAX_SEQUENCE) {
                sequence++;
            } else {
                lastMillis++;
                sequence = random.nextInt(SEQUENCE_SEED_BOUND);
            }
            millis = lastMillis;
            seq = sequence;
        }
        long mostSignificant = (millis & 0xFFFF_FFFF_FFFFL) << 16 | 0x7000L | seq;
        long leastSignificant = random.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL | 0x8000_0000_0000_0000L;
        return new UUID(mostSignificant, leastSignificant);
    }
}
