package dev.onceonly;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Eight bytes of an array at a time, as one little-endian {@code long}: the canonical JSON pass finds the end of a
 * run of plain bytes, tests a name and copies a short span with a few word operations instead of a loop whose
 * exit, different for every token, the processor mispredicts. A mark is the high bit of a byte; the first byte
 * in memory is the lowest of the word, so {@link #firstMarked} finds the first marked byte.
 */
final class ByteWords {

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class,
            ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGH_BITS = 0x8080808080808080L;
    private static final int SHORT_SPAN = 64;

    private ByteWords() {
    }

    /** The eight bytes from {@code at}, which must all lie in {@code bytes}. */
    static long get(byte[] bytes, int at) {
        return (long) LONGS.get(bytes, at);
    }

    /** Writes eight bytes from {@code at}, which must all lie in {@code bytes}. */
    static void put(byte[] bytes, int at, long word) {
        LONGS.set(bytes, at, word);
    }

    /**
     * Marks the bytes that end a run of plain string content: a quote, a backslash, a control character or a byte
     * of a multi-byte UTF-8 sequence. Only the first mark is exact: a borrow can mark a byte after it.
     */
    static long stringStops(long word) {
        return ((word ^ 0x2222222222222222L) - ONES | (word ^ 0x5C5C5C5C5C5C5C5CL) - ONES
                | word - 0x2020202020202020L | word) & HIGH_BITS;
    }

    /** Marks every byte that is not an ASCII digit; exact for every byte. */
    static long nonDigits(long word) {
        long offset = word ^ 0x3030303030303030L;
        return ((offset & 0x7F7F7F7F7F7F7F7FL) + 0x7676767676767676L | offset) & HIGH_BITS;
    }

    /** How many bytes precede the first marked one: 8 when none is. */
    static int firstMarked(long marks) {
        return Long.numberOfTrailingZeros(marks) >>> 3;
    }

    /** A word whose lowest {@code count} bytes are set: none below 1, all above 7. */
    static long mask(int count) {
        if (count <= 0) {
            return 0;
        }
        return count >= Long.BYTES ? -1L : (1L << (count * Byte.SIZE)) - 1;
    }

    /**
     * Copies a span between two arrays, writing no byte outside it: one shorter than a word byte by byte, one up
     * to {@value #SHORT_SPAN} bytes a word at a time (its last word overlapping the one before), where
     * System.arraycopy's set-up would cost more than the copy, and a longer one with System.arraycopy.
     */
    static void copy(byte[] source, int from, byte[] target, int to, int count) {
        if (count > SHORT_SPAN) {
            System.arraycopy(source, from, target, to, count);
            return;
        }
        if (count < Long.BYTES) {
            for (int i = 0; i < count; i++) {
                target[to + i] = source[from + i];
            }
            return;
        }
        for (int i = 0; i < count - Long.BYTES; i += Long.BYTES) {
            put(target, to + i, get(source, from + i));
        }
        put(target, to + count - Long.BYTES, get(source, from + count - Long.BYTES));
    }

    /** Whether two spans of {@code count} bytes are equal. */
    static boolean equal(byte[] a, int aFrom, byte[] b, int bFrom, int count) {
        if (count < Long.BYTES) {
            for (int i = 0; i < count; i++) {
                if (a[aFrom + i] != b[bFrom + i]) {
                    return false;
                }
            }
            return true;
        }
        for (int i = 0; i < count - Long.BYTES; i += Long.BYTES) {
            if (get(a, aFrom + i) != get(b, bFrom + i)) {
                return false;
            }
        }
        return get(a, aFrom + count - Long.BYTES) == get(b, bFrom + count - Long.BYTES);
    }
}
