package dev.onceonly.spring.web.internal;

import java.io.ByteArrayOutputStream;

/**
 * The body of a held response, on any server: bytes up to a bound, none once it is sealed. A write beyond the bound
 * drops what was held and every later write, so that an overflowed body is never mistaken for a whole one.
 * Thread-safe: a handler's thread may still write while the attempt's thread seals it.
 */
public final class HeldBody {

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final long bound;
    private boolean overflowed;
    private boolean sealed;

    /** @param bound the most bytes held */
    public HeldBody(long bound) {
        this.bound = bound;
    }

    /**
     * Holds {@code length} bytes of {@code source} from {@code offset}, unless the body is sealed.
     *
     * @return {@code false} if they would outgrow the bound, or it was outgrown before: nothing is held then
     */
    public synchronized boolean write(byte[] source, int offset, int length) {
        if (sealed) {
            return true;
        }
        if (overflowed || bytes.size() + (long) length > bound) {
            overflowed = true;
            bytes.reset();
            return false;
        }
        bytes.write(source, offset, length);
        return true;
    }

    /**
     * Drops what was held, for a response that starts over (an error's problem replacing a partial body). An
     * overflow stays noted: what the handler did after its body outgrew the bound is only the symptom.
     */
    public synchronized void reset() {
        if (!sealed) {
            bytes.reset();
        }
    }

    /** Drops every later write and reset. */
    public synchronized void seal() {
        sealed = true;
    }

    public synchronized boolean sealed() {
        return sealed;
    }

    public synchronized boolean overflowed() {
        return overflowed;
    }

    public synchronized byte[] content() {
        return bytes.toByteArray();
    }

    /** The most bytes held. */
    public long bound() {
        return bound;
    }
}
