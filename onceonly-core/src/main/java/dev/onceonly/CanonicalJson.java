package dev.onceonly;

import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Canonical JSON after RFC 8785 (JSON Canonicalization Scheme), so that member order, insignificant whitespace
 * and equivalent number or string spellings never change a request's fingerprint.
 *
 * <p>How it works:
 * <ol>
 *   <li>The document is parsed strictly: one value in well-formed UTF-8 (a leading byte order mark is
 *       ignored), no trailing content, no duplicate member names (I-JSON), no lone surrogates, at most
 *       {@value CanonicalJsonPass#MAX_DEPTH} levels of nesting and numbers of at most
 *       {@value CanonicalJsonPass#MAX_NUMBER_LENGTH} digits. Anything else is a
 *       {@link MalformedRequestBodyException}. This holds below excluded members too.</li>
 *   <li>Members named by an excluded JSON Pointer (RFC 6901) are dropped, with everything below them.</li>
 *   <li>Object members are written sorted by their names' UTF-16 code units; strings with the minimal JCS
 *       escapes; numbers in the ECMAScript form JCS prescribes ({@code 1.0}, {@code 1e0} and {@code 10E-1} are
 *       all {@code 1}).</li>
 * </ol>
 *
 * <p>One deliberate difference from RFC 8785: JCS reads every number as an IEEE double, so distinct integers
 * above 2<sup>53</sup> (order ids, amounts in minor units) would collapse into one. Such numbers are written
 * here as their exact decimal value instead. For every number a double holds exactly, the output is the JCS
 * output. Immutable and thread-safe.
 */
public final class CanonicalJson {

    private static final CanonicalJson STANDARD = new CanonicalJson(Set.of());

    private final Set<String> excludedPointers;
    private final Set<String> excludedParents;

    private CanonicalJson(Set<String> excludedPointers) {
        this.excludedPointers = excludedPointers;
        this.excludedParents = parentsOf(excludedPointers);
    }

    /** Canonicalises whole documents. */
    public static CanonicalJson standard() {
        return STANDARD;
    }

    /**
     * Canonicalises documents without the members the pointers name, such as {@code /requestedAt} or
     * {@code /client/traceId}.
     *
     * @throws IdempotencyConfigurationException if a pointer is not a valid JSON Pointer or names the whole
     *     document
     */
    public static CanonicalJson excluding(Collection<String> jsonPointers) {
        return new CanonicalJson(jsonPointers.stream().map(CanonicalJson::requirePointer)
                .collect(Collectors.toUnmodifiableSet()));
    }

    /** Two canonicalisations are equal if they leave out the same members: they fingerprint alike. */
    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof CanonicalJson json && json.excludedPointers.equals(excludedPointers);
    }

    @Override
    public int hashCode() {
        return excludedPointers.hashCode();
    }

    /** A JSON Pointer is {@code /} and a name, any number of times; {@code ~} escapes only {@code 0} and {@code 1}. */
    private static String requirePointer(String pointer) {
        if (pointer.isEmpty()) {
            throw IdempotencyConfigurationException.of("excluded JSON pointer", "the empty pointer would "
                    + "exclude the whole body");
        }
        boolean wellFormed = pointer.charAt(0) == '/';
        for (int i = pointer.indexOf('~'); wellFormed && i >= 0; i = pointer.indexOf('~', i + 1)) {
            wellFormed = i + 1 < pointer.length() && (pointer.charAt(i + 1) == '0' || pointer.charAt(i + 1) == '1');
        }
        if (!wellFormed) {
            throw IdempotencyConfigurationException.of("excluded JSON pointer", "'" + pointer
                    + "' is not a JSON Pointer (RFC 6901), e.g. /client/requestedAt");
        }
        return pointer;
    }

    /**
     * Returns the canonical UTF-8 form of a JSON document.
     *
     * @throws MalformedRequestBodyException if {@code json} is not one well-formed JSON value in UTF-8
     */
    public byte[] canonicalize(byte[] json) {
        return pass(json).canonicalize();
    }

    /** A pass over one document, for a caller that reads the canonical form where the pass wrote it. */
    CanonicalJsonPass pass(byte[] json) {
        return new CanonicalJsonPass(json, excludedPointers, excludedParents);
    }

    /** Every proper prefix of the pointers, the whole document ({@code ""}) included: where paths matter. */
    private static Set<String> parentsOf(Set<String> pointers) {
        Set<String> parents = new HashSet<>();
        for (String pointer : pointers) {
            for (int slash = pointer.indexOf('/'); slash >= 0; slash = pointer.indexOf('/', slash + 1)) {
                parents.add(pointer.substring(0, slash));
            }
        }
        return Set.copyOf(parents);
    }
}
