package dev.onceonly.spring.web.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The body both transports hold a response's bytes in: bounded, and closed by its seal. */
class HeldBodyTest {

    private final HeldBody body = new HeldBody(8);

    @Test
    void holdsWritesUpToTheBound() {
        assertThat(write("1234")).isTrue();
        assertThat(write("5678")).isTrue();

        assertThat(new String(body.content(), StandardCharsets.US_ASCII)).isEqualTo("12345678");
        assertThat(body.overflowed()).isFalse();
    }

    /** A part of a body is never stored as if it were the whole. */
    @Test
    void aWriteBeyondTheBoundDropsWhatWasHeldAndEveryLaterWrite() {
        write("12345");

        assertThat(write("6789")).isFalse();
        assertThat(write("1")).isFalse();
        assertThat(body.content()).isEmpty();
        assertThat(body.overflowed()).isTrue();
    }

    /** An error page the handler's failed write led to is the symptom, not a response that fits. */
    @Test
    void aResetDropsTheBytesButNotTheOverflow() {
        write("123456789");
        body.reset();

        assertThat(body.overflowed()).isTrue();
        assertThat(write("1")).isFalse();
    }

    @Test
    void aSealedBodyKeepsWhatItHeldWhateverIsWrittenOrResetLater() {
        write("1234");
        body.seal();

        assertThat(write("123456789")).isTrue();
        body.reset();

        assertThat(new String(body.content(), StandardCharsets.US_ASCII)).isEqualTo("1234");
        assertThat(body.overflowed()).isFalse();
        assertThat(body.sealed()).isTrue();
    }

    private boolean write(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        return body.write(bytes, 0, bytes.length);
    }
}
