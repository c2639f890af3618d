package dev.onceonly;

import dev.onceonly.internal.JsonNumbers;
import dev.onceonly.internal.JsonStrings;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * One pass of {@link CanonicalJson} over one document: it parses the UTF-8 bytes strictly and writes their
 * canonical form as it goes, without a tree and without decoding what needs no change.
 *
 * <p>Written by hand, not on Jackson's streaming parser, because the canonical form is mostly the input copied:
 * names and strings without escapes are the same bytes, and so are the numbers most documents hold. Decoding
 * every token into strings and numbers only to encode them again cost many times the SHA-256 of the same bytes;
 * this pass decodes only escapes and the rare number a double cannot be trusted with, and reorders an object's
 * members only when they arrive out of order.
 *
 * <p>An object's members are written where they arrive, each recorded as a span of the output; when the
 * object ends out of order, or has excluded members, its output is rewritten from a copy in sorted order. A root
 * object whose members are large is not: they stay where they are and are read in sorted order
 * ({@link #writeTo}), since rewriting it would move nearly every byte of a large body twice, a tenth of the whole
 * pass.
 * Names compare by their decoded UTF-16 code units, read from their canonical bytes. The objects of an array
 * mostly share their names in one order: each depth remembers the last object's names and order as an
 * {@link ObjectShape}, and an object whose names match it is sorted as that one was, without comparing names.
 *
 * <p>Plain runs of string content, digits and short copies are handled eight bytes at a time ({@link ByteWords}):
 * a byte loop's exit, at a different place for every token, is a mispredicted branch each time, and those
 * dominated the pass. Such word writes may run past the bytes they mean to write, never past the output's end:
 * the output always has room for as many bytes as the input has left (see {@link #write(byte)}).
 *
 * <p>Over 500 lines, as one class: every part reads the same input position and writes the same output on every
 * byte, and the parts are the parser's grammar, which reads best in one place.
 */
final class CanonicalJsonPass {

    /** Containers nested deeper are refused: the pass recurses, and so did Jackson's limit before it. */
    static final int MAX_DEPTH = 500;
    /**
     * Numbers of more digits (integer, fraction and exponent together, as Jackson counted them before) are
     * refused: their exact value would cost quadratic time to print.
     */
    static final int MAX_NUMBER_LENGTH = 1000;
    /** Decimals of at most this many significant digits are the shortest form of their double (DBL_DIG). */
    private static final int EXACT_DIGITS = 15;
    /** Within 10^±300 no decimal is subnormal as a double, so {@link #EXACT_DIGITS} holds. */
    private static final int EXACT_EXPONENT = 300;
    private static final int INSERTION_SORT_MAX = 16;
    private static final byte[] TRUE = {'t', 'r', 'u', 'e'};
    private static final byte[] FALSE = {'f', 'a', 'l', 's', 'e'};
    private static final byte[] NULL = {'n', 'u', 'l', 'l'};
    private static final byte[] NO_BYTES = {};
    private static final byte[] OPEN = {'{'};
    private static final byte[] COMMA = {','};
    private static final byte[] CLOSE = {'}'};
    /**
     * A root object whose members take fewer bytes than this on average is rewritten all the same: each member
     * costs the reader two calls, which cost more than moving a small member. Measured against rewriting every
     * root (interleaved, one JVM): 32 members of 12 bytes took 1.09 × the time read in place, 8 of 60 bytes 1.05 ×,
     * 4 of 128 bytes 0.97 ×, 4 of 256 bytes 0.92 ×.
     */
    private static final int ROOT_MEMBER_BYTES_MIN = 128;

    // A member record in `members`: where its name starts and ends in the output, where its value ends, where
    // its name started in the input (for errors), and whether it is excluded.
    private static final int START = 0;
    private static final int NAME_END = 1;
    private static final int END = 2;
    private static final int INPUT_AT = 3;
    private static final int EXCLUDED = 4;
    private static final int RECORD = 5;
    /** Members this long or shorter are moved by a fixed number of word copies, without a loop. */
    private static final int GATHER_WORDS = 4;
    private static final int GATHER_BYTES = GATHER_WORDS * Long.BYTES;

    private final byte[] in;
    private final Set<String> excluded;
    private final Set<String> excludedParents;
    private int at;
    private byte[] out;
    private int length;
    private int[] members = new int[16 * RECORD];
    private int membersLength;
    /** Where an object's members are put in order before they go back; {@link #GATHER_WORDS} words of slack. */
    private byte[] copy = NO_BYTES;
    private int[] order = new int[INSERTION_SORT_MAX];
    /** By depth, the names of the last object sorted there, which the next object's names are tried against. */
    private @Nullable ObjectShape @Nullable [] shapes;
    /** The depths below 64 where an object was met. */
    private long depthsSeen;
    private final byte[] digits = new byte[EXACT_DIGITS];
    /** Bytes of the character {@link #canonicalChar} last decoded. */
    private int charLength;
    /**
     * The root object's members, kept ones only, in sorted order, as {@code [start, end)} pairs in the output; none
     * if the output is the canonical form as it stands.
     */
    private int @Nullable [] rootSpans;
    private int canonicalLength;

    /** Reads the canonical form, in one or more pieces, in order; it must not change the bytes it is handed. */
    @FunctionalInterface
    interface Reader {
        void read(byte[] bytes, int from, int length);
    }

    /**
     * @param excluded normalised JSON Pointers of members and elements to drop
     * @param excludedParents every pointer that is a proper prefix of an excluded one, {@code ""} included;
     *     paths are only tracked below these
     */
    CanonicalJsonPass(byte[] json, Set<String> excluded, Set<String> excludedParents) {
        this.in = json;
        this.excluded = excluded;
        this.excludedParents = excludedParents;
        this.out = new byte[json.length];
    }

    byte[] canonicalize() {
        byte[] canonical = new byte[run()];
        writeTo(new Reader() {
            private int filled;

            @Override
            public void read(byte[] bytes, int from, int count) {
                System.arraycopy(bytes, from, canonical, filled, count);
                filled += count;
            }
        });
        return canonical;
    }

    /** Hands the canonical form that {@link #run} found to {@code reader}, in order. */
    void writeTo(Reader reader) {
        int[] spans = rootSpans;
        if (spans == null) {
            reader.read(out, 0, canonicalLength);
            return;
        }
        reader.read(OPEN, 0, 1);
        for (int i = 0; i < spans.length; i += 2) {
            if (i > 0) {
                reader.read(COMMA, 0, 1);
            }
            reader.read(out, spans[i], spans[i + 1] - spans[i]);
        }
        reader.read(CLOSE, 0, 1);
    }

    /**
     * Canonicalises the document, for {@link #writeTo}.
     *
     * @return the canonical form's length
     */
    int run() {
        if (in.length >= 3 && (in[0] & 0xFF) == 0xEF && (in[1] & 0xFF) == 0xBB && (in[2] & 0xFF) == 0xBF) {
            at = 3; // a byte order mark, which RFC 8259 lets a parser ignore
        }
        skipWhitespace();
        if (at == in.length) {
            throw MalformedRequestBodyException.of("the body is empty", null);
        }
        value(0, excludedParents.isEmpty() ? null : "");
        skipWhitespace();
        if (at != in.length) {
            throw MalformedRequestBodyException.of("unexpected content after the JSON value at " + location(at),
                    null);
        }
        if (rootSpans == null) {
            canonicalLength = length;
        }
        copy = NO_BYTES; // a fingerprint keeps the pass until it is built, and needs none of its scratch
        return canonicalLength;
    }

    private void value(int depth, @Nullable String path) {
        switch (next()) {
            case '{' -> object(depth + 1, path);
            case '[' -> array(depth + 1, path);
            case '"' -> string();
            case 't' -> literal(TRUE);
            case 'f' -> literal(FALSE);
            case 'n' -> literal(NULL);
            default -> number();
        }
    }

    private void object(int depth, @Nullable String path) {
        requireDepth(depth);
        at++;
        write('{');
        int regionStart = length;
        int first = membersLength;
        skipWhitespace();
        if (next() == '}') {
            at++;
            write('}');
            return;
        }
        ObjectShape shape = path == null ? shapeFor(depth) : null;
        boolean matching = shape != null && shape.count() > 0;
        boolean anyExcluded = false;
        for (int index = 0; ; index++) {
            if (next() != '"') {
                throw syntaxError();
            }
            int inputAt = at;
            int start = length;
            int matched = matching && shape != null && index < shape.count()
                    ? shape.copyName(index, in, at, out, length) : 0;
            int nameEnd;
            if (matched > 0) {
                at += matched;
                length += matched;
                nameEnd = length - 1; // where the colon is
            } else {
                matching = false;
                string();
                nameEnd = length;
                skipWhitespace();
                if (next() != ':') {
                    throw syntaxError();
                }
                at++;
                write(':');
            }
            skipWhitespace();
            String memberPath = path == null ? null : path + "/" + pointerSegment(start, nameEnd);
            boolean isExcluded = memberPath != null && excluded.contains(memberPath);
            value(depth, memberPath != null && excludedParents.contains(memberPath) ? memberPath : null);
            record(start, nameEnd, inputAt, isExcluded);
            anyExcluded |= isExcluded;
            skipWhitespace();
            byte separator = next();
            at++;
            if (separator == '}') {
                break;
            }
            if (separator != ',') {
                throw syntaxError(at - 1);
            }
            write(',');
            skipWhitespace();
        }
        int count = (membersLength - first) / RECORD;
        if (matching && shape != null && count == shape.count()) {
            if (!shape.inOrder()) {
                for (int position = 0; position < count; position++) {
                    order[position] = first + shape.sorted(position) * RECORD;
                }
                rewrite(regionStart, count);
            }
        } else {
            sortMembers(first, count, anyExcluded, regionStart, shape,
                    depth == 1 && length - regionStart >= (long) count * ROOT_MEMBER_BYTES_MIN);
        }
        membersLength = first;
        write('}');
    }

    /**
     * The shape remembered at {@code depth}, made empty if none is yet; none for the first object at a depth below
     * 64, as most documents have only one object at each depth, which a shape would not pay for.
     */
    private @Nullable ObjectShape shapeFor(int depth) {
        if (depth < Long.SIZE && (depthsSeen & 1L << depth) == 0) {
            depthsSeen |= 1L << depth;
            return null;
        }
        if (shapes == null || depth >= shapes.length) {
            shapes = Arrays.copyOf(shapes == null ? new ObjectShape[0] : shapes, Math.max(depth + 1, 8));
        }
        ObjectShape shape = shapes[depth];
        if (shape == null) {
            shape = new ObjectShape();
            shapes[depth] = shape;
        }
        return shape;
    }

    /**
     * Puts an object's members in order and drops the excluded ones, refusing two equal names; remembers the order
     * in {@code shape}, if any, for the objects after it.
     */
    private void sortMembers(int first, int count, boolean anyExcluded, int regionStart,
            @Nullable ObjectShape shape, boolean root) {
        if (order.length < count) {
            order = new int[Math.max(count, order.length * 2)];
        }
        for (int i = 0; i < count; i++) {
            order[i] = first + i * RECORD;
        }
        boolean inOrder = inArrivalOrder(count);
        if (!inOrder) {
            sort(order, count);
        }
        if (shape != null) { // only where no path is tracked, so nothing is excluded
            shape.reset(count, inOrder);
            for (int i = 0; i < count; i++) {
                int record = first + i * RECORD;
                shape.name(i, out, members[record + START], members[record + NAME_END] + 1); // and its colon
                shape.sortInto(i, (order[i] - first) / RECORD);
            }
        }
        if (!inOrder || anyExcluded) {
            if (root) {
                keepRootOrder(count);
            } else {
                rewrite(regionStart, count); // last: it moves the names the records point at
            }
        }
    }

    /** Remembers the root object's kept members in {@link #order}'s order, for {@link #writeTo}. */
    private void keepRootOrder(int count) {
        int kept = 0;
        for (int i = 0; i < count; i++) {
            kept += members[order[i] + EXCLUDED] == 0 ? 1 : 0;
        }
        int[] spans = new int[2 * kept];
        int canonical = kept == 0 ? 2 : 1 + kept; // the braces and the commas
        int span = 0;
        for (int i = 0; i < count; i++) {
            int record = order[i];
            if (members[record + EXCLUDED] == 0) {
                spans[span++] = members[record + START];
                spans[span++] = members[record + END];
                canonical += members[record + END] - members[record + START];
            }
        }
        rootSpans = spans;
        canonicalLength = canonical;
    }

    /** Whether {@link #order}'s first records are sorted by name; two equal names in a row are a duplicate. */
    private boolean inArrivalOrder(int count) {
        for (int i = 1; i < count; i++) {
            int comparison = compareNames(order[i - 1], order[i]);
            if (comparison == 0) {
                throw duplicateMember(order[i]);
            }
            if (comparison > 0) {
                return false;
            }
        }
        return true;
    }

    private void record(int start, int nameEnd, int inputAt, boolean isExcluded) {
        if (membersLength + RECORD > members.length) {
            members = Arrays.copyOf(members, members.length * 2);
        }
        int record = membersLength;
        members[record + START] = start;
        members[record + NAME_END] = nameEnd;
        members[record + END] = length;
        members[record + INPUT_AT] = inputAt;
        members[record + EXCLUDED] = isExcluded ? 1 : 0;
        membersLength += RECORD;
    }

    /**
     * Writes an object's members again, in the order of the first {@code count} records of {@link #order} and
     * without the excluded ones, in place of what arrived: never longer than that, so the output has room (see
     * {@link #write(byte)}). The members are gathered into {@link #copy}, then copied back in one piece.
     */
    private void rewrite(int regionStart, int count) {
        int regionLength = length - regionStart;
        if (copy.length < regionLength + GATHER_BYTES) {
            copy = new byte[Math.max(regionLength, copy.length * 2) + GATHER_BYTES];
        }
        byte[] out = this.out;
        byte[] copy = this.copy;
        int to = 0;
        for (int i = 0; i < count; i++) {
            int record = order[i];
            if (members[record + EXCLUDED] != 0) {
                continue;
            }
            if (to > 0) {
                copy[to++] = ',';
            }
            int from = members[record + START];
            int size = members[record + END] - from;
            if (size <= GATHER_BYTES && from + GATHER_BYTES <= out.length) {
                // a fixed copy: a loop's exit, different for every member, costs more than the bytes it saves
                for (int word = 0; word < GATHER_BYTES; word += Long.BYTES) {
                    ByteWords.put(copy, to + word, ByteWords.get(out, from + word));
                }
            } else {
                ByteWords.copy(out, from, copy, to, size);
            }
            to += size;
        }
        System.arraycopy(copy, 0, out, regionStart, to);
        length = regionStart + to;
    }

    /**
     * Insertion sort for the small objects most documents hold: inserting a name ends on a comparison with its
     * greatest lesser-or-equal neighbour, so it meets any equal one.
     */
    private void sort(int[] order, int count) {
        if (count <= INSERTION_SORT_MAX) {
            for (int i = 1; i < count; i++) {
                int record = order[i];
                int j = i - 1;
                int comparison;
                while ((comparison = compareNames(order[j], record)) > 0) {
                    order[j + 1] = order[j];
                    if (--j < 0) {
                        break;
                    }
                }
                if (comparison == 0) {
                    throw duplicateMember(record);
                }
                order[j + 1] = record;
            }
            return;
        }
        int[] sorted = Arrays.stream(order, 0, count).boxed().sorted(this::compareNames).mapToInt(Integer::intValue)
                .toArray();
        for (int i = 1; i < count; i++) {
            if (compareNames(sorted[i - 1], sorted[i]) == 0) {
                throw duplicateMember(Math.max(sorted[i - 1], sorted[i]));
            }
        }
        System.arraycopy(sorted, 0, order, 0, count);
    }

    private void array(int depth, @Nullable String path) {
        requireDepth(depth);
        at++;
        write('[');
        skipWhitespace();
        if (next() == ']') {
            at++;
            write(']');
            return;
        }
        int kept = 0;
        for (int index = 0; ; index++) {
            int before = length;
            if (kept > 0) {
                write(',');
            }
            String elementPath = path == null ? null : path + "/" + index;
            value(depth, elementPath != null && excludedParents.contains(elementPath) ? elementPath : null);
            if (elementPath != null && excluded.contains(elementPath)) {
                length = before;
            } else {
                kept++;
            }
            skipWhitespace();
            byte separator = next();
            at++;
            if (separator == ']') {
                break;
            }
            if (separator != ',') {
                throw syntaxError(at - 1);
            }
            skipWhitespace();
        }
        write(']');
    }

    private void requireDepth(int depth) {
        if (depth > MAX_DEPTH) {
            throw exceedsLimits();
        }
    }

    /**
     * A string at {@link #at}, quotes included: plain ASCII is copied as it is scanned, a word at a time while the
     * input has one left, the rest char by char. A string never writes more than it reads, so the output has room
     * (see {@link #write(byte)}), also for a whole word written where only part of it is plain.
     */
    private void string() {
        byte[] in = this.in;
        byte[] out = this.out;
        int i = at + 1;
        int o = length;
        out[o++] = '"';
        while (true) {
            while (i + Long.BYTES <= in.length) {
                long word = ByteWords.get(in, i);
                ByteWords.put(out, o, word);
                long stops = ByteWords.stringStops(word);
                if (stops != 0) {
                    int plain = ByteWords.firstMarked(stops);
                    i += plain;
                    o += plain;
                    break;
                }
                i += Long.BYTES;
                o += Long.BYTES;
            }
            while (i < in.length) {
                byte b = in[i];
                if (b < 0x20 || b == '"' || b == '\\') {
                    break;
                }
                out[o++] = b;
                i++;
            }
            at = i;
            length = o;
            if (i == in.length) {
                throw syntaxError();
            }
            byte b = in[i];
            if (b == '"') {
                at++;
                write('"');
                return;
            }
            if (b == '\\') {
                escape();
            } else if (b >= 0) {
                throw MalformedRequestBodyException.of("a string holds an unescaped control character at "
                        + location(at), null);
            } else {
                utf8Sequence();
            }
            i = at;
            o = length;
        }
    }

    /** Copies one multi-byte UTF-8 sequence, refusing what RFC 3629 forbids (overlong forms, surrogates). */
    private void utf8Sequence() {
        int lead = in[at] & 0xFF;
        int size;
        int secondMin = 0x80;
        int secondMax = 0xBF;
        if (lead >= 0xC2 && lead <= 0xDF) {
            size = 2;
        } else if (lead >= 0xE0 && lead <= 0xEF) {
            size = 3;
            if (lead == 0xE0) {
                secondMin = 0xA0;
            } else if (lead == 0xED) {
                secondMax = 0x9F;
            }
        } else if (lead >= 0xF0 && lead <= 0xF4) {
            size = 4;
            if (lead == 0xF0) {
                secondMin = 0x90;
            } else if (lead == 0xF4) {
                secondMax = 0x8F;
            }
        } else {
            throw invalidUtf8();
        }
        if (at + size > in.length) {
            throw invalidUtf8();
        }
        int second = in[at + 1] & 0xFF;
        if (second < secondMin || second > secondMax) {
            throw invalidUtf8();
        }
        for (int i = 2; i < size; i++) {
            if ((in[at + i] & 0xC0) != 0x80) {
                throw invalidUtf8();
            }
        }
        write(in, at, size);
        at += size;
    }

    private void escape() {
        if (at + 1 >= in.length) {
            throw syntaxError();
        }
        byte escaped = in[at + 1];
        at += 2;
        switch (escaped) {
            case '"', '\\' -> writeCodePoint(escaped);
            case '/' -> write('/');
            case 'b' -> writeCodePoint('\b');
            case 'f' -> writeCodePoint('\f');
            case 'n' -> writeCodePoint('\n');
            case 'r' -> writeCodePoint('\r');
            case 't' -> writeCodePoint('\t');
            case 'u' -> writeCodePoint(escapedCodePoint());
            default -> throw syntaxError(at - 1);
        }
    }

    /** The code point of a {@code \}{@code u} escape whose four digits are at {@link #at}, a pair if it is one. */
    private int escapedCodePoint() {
        int escapeAt = at - 2;
        char unit = hexUnit();
        if (Character.isHighSurrogate(unit) && at + 1 < in.length && in[at] == '\\' && in[at + 1] == 'u') {
            at += 2;
            char low = hexUnit();
            if (Character.isLowSurrogate(low)) {
                return Character.toCodePoint(unit, low);
            }
        }
        if (Character.isSurrogate(unit)) {
            throw MalformedRequestBodyException.of("a string holds a lone UTF-16 surrogate at "
                    + location(escapeAt), null);
        }
        return unit;
    }

    private char hexUnit() {
        if (at + 4 > in.length) {
            throw syntaxError();
        }
        int unit = 0;
        for (int i = 0; i < 4; i++) {
            int digit = Character.digit(in[at + i], 16);
            if (digit < 0) {
                throw syntaxError(at + i);
            }
            unit = unit << 4 | digit;
        }
        at += 4;
        return (char) unit;
    }

    private void writeCodePoint(int codePoint) {
        if (codePoint < 0x80) {
            String escape = JsonStrings.escape(codePoint);
            if (escape == null) {
                write((byte) codePoint);
            } else {
                for (int i = 0; i < escape.length(); i++) {
                    write((byte) escape.charAt(i));
                }
            }
        } else if (codePoint < 0x800) {
            write((byte) (0xC0 | codePoint >> 6));
            write((byte) (0x80 | codePoint & 0x3F));
        } else if (codePoint < 0x10000) {
            write((byte) (0xE0 | codePoint >> 12));
            write((byte) (0x80 | codePoint >> 6 & 0x3F));
            write((byte) (0x80 | codePoint & 0x3F));
        } else {
            write((byte) (0xF0 | codePoint >> 18));
            write((byte) (0x80 | codePoint >> 12 & 0x3F));
            write((byte) (0x80 | codePoint >> 6 & 0x3F));
            write((byte) (0x80 | codePoint & 0x3F));
        }
    }

    private void literal(byte[] literal) {
        if (!Arrays.equals(in, at, Math.min(at + literal.length, in.length), literal, 0, literal.length)) {
            throw syntaxError();
        }
        write(in, at, literal.length);
        at += literal.length;
    }

    /**
     * A number. Its canonical form is read off its digits when it has at most {@value #EXACT_DIGITS} significant
     * ones within 10^&plusmn;{@value #EXACT_EXPONENT}: such a decimal is the shortest form of the double nearest
     * to it, so {@link JsonNumbers#canonical} would find the double's ECMAScript form to be exact and return it.
     * Any other number takes that general path.
     */
    private void number() {
        if (plainNumber()) {
            return;
        }
        byte[] in = this.in;
        int start = at;
        int i = start;
        if (in[i] == '-') {
            i++;
        }
        int integerStart = i;
        if (i < in.length && in[i] == '0') {
            i++;
        } else {
            i = skipDigits(i);
            if (i == integerStart) {
                throw syntaxError(i);
            }
        }
        int integerDigits = i - integerStart;
        int fractionStart = i + 1;
        int fractionDigits = 0;
        if (i < in.length && in[i] == '.') {
            i = skipDigits(fractionStart);
            fractionDigits = i - fractionStart;
            if (fractionDigits == 0) {
                throw syntaxError(i);
            }
        }
        long exponent = 0;
        int exponentDigits = 0;
        boolean hasExponent = i < in.length && (in[i] | 0x20) == 'e';
        if (hasExponent) {
            i++;
            boolean negativeExponent = i < in.length && in[i] == '-';
            if (i < in.length && (in[i] == '-' || in[i] == '+')) {
                i++;
            }
            int exponentStart = i;
            i = skipDigits(i);
            exponentDigits = i - exponentStart;
            if (exponentDigits == 0) {
                throw syntaxError(i);
            }
            for (int j = exponentStart; j < i && exponent <= Integer.MAX_VALUE; j++) {
                exponent = exponent * 10 + in[j] - '0';
            }
            if (exponent > Integer.MAX_VALUE) {
                throw numberOutOfRange();
            }
            exponent = negativeExponent ? -exponent : exponent;
        }
        at = i;
        boolean negative = integerStart > start;
        if (integerDigits + fractionDigits + exponentDigits > MAX_NUMBER_LENGTH) {
            throw exceedsLimits();
        }
        int all = integerDigits + fractionDigits;
        if (!hasExponent && all <= EXACT_DIGITS && spelledCanonically(start, integerStart, fractionStart,
                fractionDigits)) {
            for (int j = start; j < at; j++) {
                out[length++] = in[j]; // a few bytes: cheaper than System.arraycopy's call
            }
            return;
        }
        int firstSignificant = 0;
        while (firstSignificant < all && digitAt(firstSignificant, integerStart, integerDigits, fractionStart) == '0') {
            firstSignificant++;
        }
        if (firstSignificant == all) {
            write('0');
            return;
        }
        int lastSignificant = all - 1;
        while (digitAt(lastSignificant, integerStart, integerDigits, fractionStart) == '0') {
            lastSignificant--;
        }
        int significant = lastSignificant - firstSignificant + 1;
        long pointAt = integerDigits - firstSignificant + exponent;
        if (significant > EXACT_DIGITS || Math.abs(pointAt) > EXACT_EXPONENT) {
            writeGeneral(start);
            return;
        }
        for (int j = 0; j < significant; j++) {
            digits[j] = digitAt(firstSignificant + j, integerStart, integerDigits, fractionStart);
        }
        makeRoom(significant + JsonNumbers.MAX_LAYOUT_OVERHEAD);
        length = JsonNumbers.writeEcmaScript(negative, digits, significant, (int) pointAt, out, length);
    }

    /**
     * Copies the number at {@link #at} if, as most numbers, it fits in a word with a byte after it and is spelled
     * canonically without a sign or an exponent ({@code 42}, {@code 19.5}), found from the word's digit marks.
     *
     * @return whether it did; if not, nothing was read or written
     */
    private boolean plainNumber() {
        int start = at;
        if (start + Long.BYTES > in.length) {
            return false;
        }
        long word = ByteWords.get(in, start);
        long nonDigits = ByteWords.nonDigits(word);
        int end = ByteWords.firstMarked(nonDigits);
        if (end == 0 || end >= Long.BYTES - 1 || end > 1 && (byte) word == '0') {
            // a sign, a leading zero, or seven digits or more: (end + 1) bytes must stay a shift below 64 bits
            return false;
        }
        int after = byteOf(word, end);
        if (after == '.') {
            int fractionDigits = ByteWords.firstMarked(nonDigits >>> (end + 1) * Byte.SIZE);
            end += 1 + fractionDigits;
            if (fractionDigits == 0 || end >= Long.BYTES || byteOf(word, end - 1) == '0') {
                return false; // no digit after the point, the word ends in the fraction, or a trailing zero
            }
            after = byteOf(word, end);
        }
        if ((after | 0x20) == 'e') {
            return false;
        }
        ByteWords.put(out, length, word); // room: the input has a word left
        length += end;
        at = start + end;
        return true;
    }

    private static int byteOf(long word, int index) {
        return (int) (word >>> index * Byte.SIZE) & 0xFF;
    }

    /**
     * Whether a number of few enough digits and no exponent is already in its canonical form, as most are:
     * {@code 42}, {@code 19.5}, {@code -0.25}; not {@code -0}, {@code 1.50} or {@code 0.0000001}.
     */
    private boolean spelledCanonically(int start, int integerStart, int fractionStart, int fractionDigits) {
        boolean zeroInteger = in[integerStart] == '0';
        if (fractionDigits == 0) {
            return !zeroInteger || integerStart == start;
        }
        if (in[fractionStart + fractionDigits - 1] == '0') {
            return false;
        }
        if (!zeroInteger) {
            return true;
        }
        int leadingZeros = 0;
        while (in[fractionStart + leadingZeros] == '0') {
            leadingZeros++;
        }
        return leadingZeros < 6;
    }

    private byte digitAt(int index, int integerStart, int integerDigits, int fractionStart) {
        return in[index < integerDigits ? integerStart + index : fractionStart + index - integerDigits];
    }

    private void writeGeneral(int start) {
        String canonical;
        try {
            canonical = JsonNumbers.canonical(new BigDecimal(new String(in, start, at - start,
                    StandardCharsets.US_ASCII)));
        } catch (NumberFormatException | ArithmeticException e) {
            // e.g. an exponent beyond what BigDecimal holds; the message would quote the number
            throw numberOutOfRange();
        }
        byte[] bytes = canonical.getBytes(StandardCharsets.US_ASCII);
        makeRoom(bytes.length);
        write(bytes, 0, bytes.length);
    }

    /** The position of the first byte from {@code i} on that is not a digit. */
    private int skipDigits(int i) {
        byte[] in = this.in;
        while (i + Long.BYTES <= in.length) {
            long nonDigits = ByteWords.nonDigits(ByteWords.get(in, i));
            if (nonDigits != 0) {
                return i + ByteWords.firstMarked(nonDigits);
            }
            i += Long.BYTES;
        }
        while (i < in.length && in[i] >= '0' && in[i] <= '9') {
            i++;
        }
        return i;
    }

    private void skipWhitespace() {
        byte[] in = this.in;
        int i = at;
        // Between tokens a body mostly holds no whitespace or one space ("name": value, a, b): both are decided here,
        // before the loop; the fingerprint takes 6-8 % less time at 64 KB and 14-25 % less at 2 KB so (JMH).
        if (i + 1 < in.length) {
            byte first = in[i];
            if (first > ' ') {
                return;
            }
            if (first == ' ' && in[i + 1] > ' ') {
                at = i + 1;
                return;
            }
        }
        while (i < in.length) {
            byte b = in[i];
            if (b > ' ') {
                break; // most bytes: no whitespace is above the space
            }
            if (b != ' ' && b != '\n' && b != '\r' && b != '\t') {
                break;
            }
            i++;
        }
        at = i;
    }

    /** The byte at {@link #at}; the document must not end here. */
    private byte next() {
        if (at >= in.length) {
            throw MalformedRequestBodyException.of("the body ends inside the JSON value", null);
        }
        return in[at];
    }

    /**
     * Orders two recorded names by their UTF-16 code units, as RFC 8785 sorts them, reading the canonical
     * bytes: equal ASCII bytes are equal units; anything else is decoded to its code point first.
     */
    private int compareNames(int recordA, int recordB) {
        int a = members[recordA + START] + 1;
        int aEnd = members[recordA + NAME_END] - 1;
        int b = members[recordB + START] + 1;
        int bEnd = members[recordB + NAME_END] - 1;
        while (a < aEnd && b < bEnd) {
            byte x = out[a];
            byte y = out[b];
            if (x >= 0 && y >= 0 && x != '\\' && y != '\\') {
                if (x != y) {
                    return x - y;
                }
                a++;
                b++;
                continue;
            }
            int codePointA = canonicalChar(a);
            a += charLength;
            int codePointB = canonicalChar(b);
            b += charLength;
            if (codePointA != codePointB) {
                return firstUnit(codePointA) != firstUnit(codePointB) ? firstUnit(codePointA) - firstUnit(codePointB)
                        : Character.lowSurrogate(codePointA) - Character.lowSurrogate(codePointB);
            }
        }
        return (a < aEnd ? 1 : 0) - (b < bEnd ? 1 : 0);
    }

    private static int firstUnit(int codePoint) {
        return Character.isBmpCodePoint(codePoint) ? codePoint : Character.highSurrogate(codePoint);
    }

    /** Decodes the character whose canonical bytes start at {@code i} of the output; sets {@link #charLength}. */
    private int canonicalChar(int i) {
        int lead = out[i] & 0xFF;
        if (lead == '\\') {
            byte escaped = out[i + 1];
            charLength = escaped == 'u' ? 6 : 2;
            return switch (escaped) {
                case 'b' -> '\b';
                case 'f' -> '\f';
                case 'n' -> '\n';
                case 'r' -> '\r';
                case 't' -> '\t';
                case 'u' -> Character.digit(out[i + 4], 16) << 4 | Character.digit(out[i + 5], 16);
                default -> escaped;
            };
        }
        if (lead < 0x80) {
            charLength = 1;
            return lead;
        }
        if (lead < 0xE0) {
            charLength = 2;
            return (lead & 0x1F) << 6 | out[i + 1] & 0x3F;
        }
        if (lead < 0xF0) {
            charLength = 3;
            return (lead & 0x0F) << 12 | (out[i + 1] & 0x3F) << 6 | out[i + 2] & 0x3F;
        }
        charLength = 4;
        return (lead & 0x07) << 18 | (out[i + 1] & 0x3F) << 12 | (out[i + 2] & 0x3F) << 6 | out[i + 3] & 0x3F;
    }

    /** The name written at {@code [start, nameEnd)} of the output, quotes included, as text. */
    private String name(int start, int nameEnd) {
        StringBuilder name = new StringBuilder(nameEnd - start);
        for (int i = start + 1; i < nameEnd - 1; i += charLength) {
            name.appendCodePoint(canonicalChar(i));
        }
        return name.toString();
    }

    private String pointerSegment(int start, int nameEnd) {
        return name(start, nameEnd).replace("~", "~0").replace("/", "~1");
    }

    /**
     * Writes check no bounds: the output always has room for as many bytes as the input has left, since nothing
     * but a number writes more than it reads (escapes, whitespace and exclusions only shrink), and a number
     * makes room for itself and the rest of the input ({@link #makeRoom}).
     */
    private void write(byte b) {
        out[length++] = b;
    }

    private void write(char c) {
        write((byte) c);
    }

    private void write(byte[] bytes, int from, int count) {
        System.arraycopy(bytes, from, out, length, count);
        length += count;
    }

    /** Room for {@code count} bytes more than the input has left. */
    private void makeRoom(int count) {
        int needed = length + count + in.length - at;
        if (needed > out.length) {
            out = Arrays.copyOf(out, Math.max(out.length * 2, needed));
        }
    }

    private MalformedRequestBodyException duplicateMember(int record) {
        return MalformedRequestBodyException.of("duplicate member name (" + name(members[record + START],
                members[record + NAME_END]).length() + " characters) at " + location(members[record + INPUT_AT]),
                null);
    }

    private static MalformedRequestBodyException numberOutOfRange() {
        return MalformedRequestBodyException.of("a number is out of range", null);
    }

    private static MalformedRequestBodyException exceedsLimits() {
        return MalformedRequestBodyException.of("the document exceeds the parser's limits on nesting or number "
                + "length", null);
    }

    private MalformedRequestBodyException invalidUtf8() {
        return MalformedRequestBodyException.of("a string is not well-formed UTF-8 at " + location(at), null);
    }

    private MalformedRequestBodyException syntaxError() {
        return syntaxError(at);
    }

    private MalformedRequestBodyException syntaxError(int offset) {
        return MalformedRequestBodyException.of("syntax error at " + location(offset), null);
    }

    /** Line and column (both from 1, the column in bytes) of an input offset; only errors pay for counting. */
    private String location(int offset) {
        int line = 1;
        int lineStart = 0;
        for (int i = 0; i < Math.min(offset, in.length); i++) {
            if (in[i] == '\n') {
                line++;
                lineStart = i + 1;
            }
        }
        return "line " + line + ", column " + (offset - lineStart + 1);
    }
}
