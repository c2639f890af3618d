package dev.onceonly;

import java.util.Arrays;

/**
 * The names of the last object a {@link CanonicalJsonPass} sorted at one depth, in arrival order, and the order
 * they sort into. The elements of an array of objects mostly share their names and arrive in one order, so the
 * next object's names are matched against these a word or two at a time, and, when all match, sorted as these
 * were: no scan of the names, no comparison, no sort.
 *
 * <p>Each name is held as its canonical bytes, quotes included, and the colon after it: the input mostly has the
 * colon right after the name, and then one match covers both. An input name that is byte for byte a canonical
 * name is that name: a canonical string parses to itself and canonicalises to the same bytes.
 */
final class ObjectShape {

    /** Names up to this many bytes, quotes and colon included, are matched in two words without a loop. */
    private static final int SHORT_NAME = 2 * Long.BYTES;

    private int count;
    private boolean inOrder;
    private int[] sorted = new int[0];
    private int[] lengths = new int[0];
    private long[] lowWords = new long[0];
    private long[] highWords = new long[0];
    private long[] lowMasks = new long[0];
    private long[] highMasks = new long[0];
    /** The names one after the other, for those longer than {@link #SHORT_NAME}. */
    private byte[] names = new byte[0];
    private int[] starts = new int[0];

    int count() {
        return count;
    }

    /** Whether the names arrived sorted. */
    boolean inOrder() {
        return inOrder;
    }

    /** The arrival index of the name that sorts into {@code position}. */
    int sorted(int position) {
        return sorted[position];
    }

    /**
     * Copies the name {@code index} and its colon to {@code out} at {@code length} if {@code in} holds exactly
     * them at {@code at}. {@code out} must have room for as many bytes as {@code in} has from {@code at} on.
     *
     * @return the length of the name and colon in bytes, or 0 if {@code in} does not hold them there
     */
    int copyName(int index, byte[] in, int at, byte[] out, int length) {
        int nameLength = lengths[index];
        if (nameLength <= SHORT_NAME && at + SHORT_NAME <= in.length) {
            long low = ByteWords.get(in, at);
            long high = ByteWords.get(in, at + Long.BYTES);
            if ((low & lowMasks[index]) != lowWords[index] || (high & highMasks[index]) != highWords[index]) {
                return 0;
            }
            ByteWords.put(out, length, low);
            ByteWords.put(out, length + Long.BYTES, high);
            return nameLength;
        }
        if (at + nameLength > in.length || !ByteWords.equal(in, at, names, starts[index], nameLength)) {
            return 0;
        }
        ByteWords.copy(in, at, out, length, nameLength);
        return nameLength;
    }

    /** Starts a new shape of {@code count} names; {@link #name} and {@link #sortInto} fill it in. */
    void reset(int count, boolean inOrder) {
        if (sorted.length < count) {
            int capacity = Math.max(count, sorted.length * 2);
            sorted = new int[capacity];
            lengths = new int[capacity];
            lowWords = new long[capacity];
            highWords = new long[capacity];
            lowMasks = new long[capacity];
            highMasks = new long[capacity];
            starts = new int[capacity];
        }
        this.count = count;
        this.inOrder = inOrder;
    }

    /** Name {@code index} in arrival order: the canonical bytes {@code [from, to)} of {@code out}, colon included. */
    void name(int index, byte[] out, int from, int to) {
        int nameLength = to - from;
        int start = index == 0 ? 0 : starts[index - 1] + lengths[index - 1];
        if (names.length < start + nameLength) {
            names = Arrays.copyOf(names, Math.max(start + nameLength, names.length * 2));
        }
        System.arraycopy(out, from, names, start, nameLength);
        starts[index] = start;
        lengths[index] = nameLength;
        lowWords[index] = word(out, from, nameLength);
        highWords[index] = word(out, from + Long.BYTES, nameLength - Long.BYTES);
        lowMasks[index] = ByteWords.mask(nameLength);
        highMasks[index] = ByteWords.mask(nameLength - Long.BYTES);
    }

    /** The name at arrival index {@code index} sorts into {@code position}. */
    void sortInto(int position, int index) {
        sorted[position] = index;
    }

    /** The first {@code count} bytes from {@code from} as the low bytes of a word; none if count is not positive. */
    private static long word(byte[] bytes, int from, int count) {
        long word = 0;
        for (int i = Math.min(count, Long.BYTES) - 1; i >= 0; i--) {
            word = word << Byte.SIZE | bytes[from + i] & 0xFF;
        }
        return word;
    }
}
