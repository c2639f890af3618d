package dev.onceonly;

import dev.onceonly.InvalidIdempotencyKeyException.Violation;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The rule a valid idempotency key follows, and the parser for {@code Idempotency-Key} header values.
 *
 * <p>The default rule is {@code ^[A-Za-z0-9_-]{1,255}$}, what clients send (UUIDs, Stripe's keys). Header values are accepted in the two forms clients
 * send: the IETF draft's Structured Field String ({@code "01JZ6Q4X7M9K8P2A6T3B5C1D0E"}, parameters ignored) and
 * the bare token form of Stripe-style clients. Immutable and thread-safe.
 */
public final class IdempotencyKeyFormat {

    /** {@code ^[A-Za-z0-9_-]{1,255}$}: {@link IdempotencyDefaults#KEY_MIN_LENGTH} to {@code KEY_MAX_LENGTH}. */
    public static final IdempotencyKeyFormat DEFAULT = lengthBetween(IdempotencyDefaults.KEY_MIN_LENGTH,
            IdempotencyDefaults.KEY_MAX_LENGTH);

    private final int minLength;
    private final int maxLength;
    private final @Nullable Pattern pattern;

    private IdempotencyKeyFormat(int minLength, int maxLength, @Nullable Pattern pattern) {
        this.minLength = minLength;
        this.maxLength = maxLength;
        this.pattern = pattern;
    }

    /**
     * Keys of {@code A-Z a-z 0-9 _ -} with a length between the bounds (inclusive).
     *
     * @throws IdempotencyConfigurationException unless {@code 1 <= minLength <= maxLength <= 255}
     */
    public static IdempotencyKeyFormat lengthBetween(int minLength, int maxLength) {
        if (minLength < 1 || minLength > maxLength || maxLength > IdempotencyKey.MAX_LENGTH) {
            throw IdempotencyConfigurationException.of("key length", "expected 1 <= min <= max <= "
                    + IdempotencyKey.MAX_LENGTH + " but got min=" + minLength + ", max=" + maxLength);
        }
        return new IdempotencyKeyFormat(minLength, maxLength, null);
    }

    /**
     * Keys that fully match {@code regex} and are at most 255 characters long.
     *
     * @throws IdempotencyConfigurationException if {@code regex} does not compile
     */
    public static IdempotencyKeyFormat matching(String regex) {
        try {
            return new IdempotencyKeyFormat(1, IdempotencyKey.MAX_LENGTH, Pattern.compile(regex));
        } catch (RuntimeException e) {
            throw IdempotencyConfigurationException.of("key pattern", "not a valid regular expression: "
                    + e.getMessage());
        }
    }

    /**
     * Parses the values of every {@code Idempotency-Key} header field of one request.
     *
     * @throws InvalidIdempotencyKeyException {@link Violation#MISSING} for none, {@link Violation#MULTIPLE_VALUES}
     *     for more than one, or the rule the single value breaks
     */
    public IdempotencyKey parseHeader(List<String> fieldValues) {
        if (fieldValues.isEmpty()) {
            throw InvalidIdempotencyKeyException.of(Violation.MISSING, "The Idempotency-Key header is required");
        }
        if (fieldValues.size() > 1) {
            throw multipleValues();
        }
        return parse(fieldValues.getFirst());
    }

    /**
     * Parses one header field value, bare ({@code abc…}) or as a Structured Field String ({@code "abc…"}).
     *
     * @throws InvalidIdempotencyKeyException naming the rule the value breaks
     */
    public IdempotencyKey parse(String fieldValue) {
        String trimmed = fieldValue.strip();
        if (trimmed.isEmpty()) {
            throw InvalidIdempotencyKeyException.of(Violation.MISSING, "The Idempotency-Key header is empty");
        }
        if (trimmed.charAt(0) == '"') {
            return validate(parseStructuredString(trimmed));
        }
        if (trimmed.indexOf(',') >= 0) {
            throw multipleValues();
        }
        return validate(trimmed);
    }

    /**
     * Validates an unquoted key.
     *
     * @throws InvalidIdempotencyKeyException naming the rule {@code raw} breaks
     */
    public IdempotencyKey validate(String raw) {
        Objects.requireNonNull(raw, "raw");
        if (raw.length() < minLength) {
            throw InvalidIdempotencyKeyException.of(Violation.TOO_SHORT, "The Idempotency-Key is " + raw.length()
                    + " characters long; at least " + minLength + " are required");
        }
        if (raw.length() > maxLength) {
            throw InvalidIdempotencyKeyException.of(Violation.TOO_LONG, "The Idempotency-Key is " + raw.length()
                    + " characters long; at most " + maxLength + " are allowed");
        }
        if (pattern != null) {
            if (!pattern.matcher(raw).matches()) {
                throw InvalidIdempotencyKeyException.of(Violation.PATTERN_MISMATCH,
                        "The Idempotency-Key does not match the pattern " + pattern.pattern());
            }
            return new IdempotencyKey(raw);
        }
        for (int i = 0; i < raw.length(); i++) {
            if (!isDefaultKeyChar(raw.charAt(i))) {
                throw InvalidIdempotencyKeyException.of(Violation.ILLEGAL_CHARACTER, "The Idempotency-Key has a "
                        + "character outside A-Z, a-z, 0-9, '_' and '-' at position " + (i + 1));
            }
        }
        return new IdempotencyKey(raw);
    }

    private static boolean isDefaultKeyChar(char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    }

    /**
     * RFC 8941 section 4.2.5: a string is DQUOTE *(unescaped / "\" DQUOTE / "\\") DQUOTE over printable ASCII.
     * An item may carry parameters after the string; they are allowed and ignored. A comma outside the quotes
     * means a list, i.e. several keys.
     */
    private static String parseStructuredString(String value) {
        StringBuilder out = new StringBuilder(value.length());
        int i = 1;
        while (true) {
            if (i >= value.length()) {
                throw malformed("the closing quote is missing");
            }
            char c = value.charAt(i++);
            if (c == '"') {
                break;
            }
            if (c == '\\') {
                if (i >= value.length() || (value.charAt(i) != '"' && value.charAt(i) != '\\')) {
                    throw malformed("a backslash may only escape '\"' or '\\'");
                }
                out.append(value.charAt(i++));
            } else if (c < 0x20 || c > 0x7E) {
                throw malformed("only printable ASCII characters are allowed");
            } else {
                out.append(c);
            }
        }
        String rest = value.substring(i).stripLeading();
        if (rest.isEmpty()) {
            return out.toString();
        }
        if (rest.charAt(0) == ',' || (rest.charAt(0) == ';' && rest.indexOf(',') >= 0)) {
            throw multipleValues();
        }
        if (rest.charAt(0) != ';') {
            throw malformed("unexpected characters after the closing quote");
        }
        return out.toString();
    }

    private static InvalidIdempotencyKeyException malformed(String reason) {
        return InvalidIdempotencyKeyException.of(Violation.MALFORMED_STRING,
                "The Idempotency-Key is not a valid Structured Field String: " + reason);
    }

    private static InvalidIdempotencyKeyException multipleValues() {
        return InvalidIdempotencyKeyException.of(Violation.MULTIPLE_VALUES,
                "Exactly one Idempotency-Key value is allowed, but several were sent");
    }

    @Override
    public String toString() {
        return pattern != null ? "IdempotencyKeyFormat[" + pattern.pattern() + "]"
                : "IdempotencyKeyFormat[[A-Za-z0-9_-]{" + minLength + "," + maxLength + "}]";
    }
}
