package dev.onceonly.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;

class UuidV7Test {

    private final TestTime time = new TestTime();
    private final UuidV7 generator = new UuidV7(time, new SecureRandom());

    @Test
    void carriesVersion7AndTheRfcVariant() {
        UUID uuid = generator.next();

        assertThat(uuid.version()).isEqualTo(7);
        assertThat(uuid.variant()).isEqualTo(2);
        assertThat(uuid.toString()).matches("[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
    }

    @Test
    void leadsWithTheUnixMillisecondsOfTheClock() {
        UUID uuid = generator.next();

        assertThat(uuid.getMostSignificantBits() >>> 16).isEqualTo(time.millis());
    }

    @Test
    void tenThousandAreUniqueAndInTheOrderTheyWereMade() {
        List<String> made = new ArrayList<>();

        for (int i = 0; i < 10_000; i++) {
            made.add(generator.next().toString());
            if (i % 100 == 0) {
                time.advance(Duration.ofMillis(1));
            }
        }

        assertThat(new HashSet<>(made)).hasSize(10_000);
        assertThat(made).isSorted();
    }

    @Test
    void staysOrderedWithinOneMillisecondBeyondTheSequenceRange() {
        List<String> made = new ArrayList<>();

        for (int i = 0; i < 10_000; i++) {
            made.add(generator.next().toString());
        }

        assertThat(new HashSet<>(made)).hasSize(10_000);
        assertThat(made).isSorted();
    }

    @Test
    void staysOrderedWhenTheClockStepsBack() {
        String before = generator.next().toString();
        time.advance(Duration.ofSeconds(-5));

        String after = generator.next().toString();

        assertThat(after).isGreaterThan(before);
    }

    @Test
    void defaultGeneratorMakesDistinctVersion7Keys() {
        UuidV7 system = new UuidV7();

        UUID first = system.next();
        UUID second = system.next();

        assertThat(first).isNotEqualTo(second);
        assertThat(List.of(first.version(), second.version())).containsOnly(7);
    }
}
