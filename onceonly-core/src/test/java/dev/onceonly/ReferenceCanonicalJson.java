package dev.onceonly;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.core.json.JsonFactory;

/**
 * The canonical JSON of fingerprint scheme 1 as it was first built, on Jackson's streaming parser and a tree: the
 * oracle {@link CanonicalJson} must agree with byte for byte, since every stored fingerprint was made by it, and a
 * retry whose fingerprint changed across an upgrade would be refused as a reused key. Self-contained, with the
 * number layout and string escapes as they were then, so that a change to the shared ones fails against it.
 */
final class ReferenceCanonicalJson {

    private static final JsonFactory FACTORY = JsonFactory.builder().build();
    private static final ReferenceCanonicalJson STANDARD = new ReferenceCanonicalJson(Set.of());
    /** 2^53: every integer up to it is exactly a double. */
    private static final long MAX_EXACT_INTEGER = 1L << 53;

    private final Set<String> excludedPointers;

    private ReferenceCanonicalJson(Set<String> excludedPointers) {
        this.excludedPointers = excludedPointers;
    }

    /** Canonicalises whole documents. */
    static ReferenceCanonicalJson standard() {
        return STANDARD;
    }

    /** Canonicalises documents without the members named by the pointers, already in normal form. */
    static ReferenceCanonicalJson excluding(Collection<String> jsonPointers) {
        return new ReferenceCanonicalJson(Set.copyOf(jsonPointers));
    }

    /**
     * Returns the canonical UTF-8 form of a JSON document.
     *
     * @throws MalformedRequestBodyException if {@code json} is not one well-formed JSON value
     */
    byte[] canonicalize(byte[] json) {
        Object root;
        try (JsonParser parser = FACTORY.createParser(ObjectReadContext.empty(), json)) {
            if (parser.nextToken() == null) {
                throw MalformedRequestBodyException.of("the body is empty", null);
            }
            root = readValue(parser, "");
            if (parser.nextToken() != null) {
                throw MalformedRequestBodyException.of("unexpected content after the JSON value at "
                        + location(parser), null);
            }
        } catch (NumberFormatException | ArithmeticException e) {
            // e.g. an exponent beyond what BigDecimal holds; the message would quote the number
            throw MalformedRequestBodyException.of("a number is out of range", null);
        } catch (StreamConstraintsException e) {
            throw MalformedRequestBodyException.of("the document exceeds the parser's limits on nesting, number "
                    + "or string length", null);
        } catch (JacksonException e) {
            // Jackson's own message may quote part of the body (an unquoted token), so only the position is kept.
            throw MalformedRequestBodyException.of("syntax error at " + location(e), null);
        }
        StringBuilder out = new StringBuilder(json.length);
        write(root, out);
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    private Object readValue(JsonParser parser, String path) {
        JsonToken token = parser.currentToken();
        return switch (token) {
            case START_OBJECT -> readObject(parser, path);
            case START_ARRAY -> readArray(parser, path);
            case VALUE_STRING -> requireWellFormed(parser.getString(), parser);
            case VALUE_NUMBER_INT -> new JsonNumber(integer(parser));
            case VALUE_NUMBER_FLOAT -> new JsonNumber(canonicalNumber(parser.getDecimalValue()));
            case VALUE_TRUE -> Boolean.TRUE;
            case VALUE_FALSE -> Boolean.FALSE;
            case VALUE_NULL -> JsonNull.INSTANCE;
            default -> throw MalformedRequestBodyException.of("unexpected " + token + " at " + location(parser),
                    null);
        };
    }

    /** Integers a double holds exactly print as their digits in JCS; only larger ones need the general path. */
    private static String integer(JsonParser parser) {
        if (parser.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
            long value = parser.getLongValue();
            if (Math.abs(value) <= MAX_EXACT_INTEGER) {
                return Long.toString(value);
            }
        }
        return canonicalNumber(parser.getDecimalValue());
    }

    private Map<String, Object> readObject(JsonParser parser, String path) {
        Map<String, Object> members = new TreeMap<>();
        while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
            String name = requireWellFormed(parser.currentName(), parser);
            String memberPath = path + "/" + escapePointerSegment(name);
            parser.nextToken();
            if (excludedPointers.contains(memberPath)) {
                parser.skipChildren();
                if (members.containsKey(name)) {
                    throw duplicateMember(name, parser);
                }
                members.put(name, Excluded.INSTANCE);
                continue;
            }
            if (members.put(name, readValue(parser, memberPath)) != null) {
                throw duplicateMember(name, parser);
            }
        }
        members.values().removeIf(value -> value == Excluded.INSTANCE);
        return members;
    }

    private List<Object> readArray(JsonParser parser, String path) {
        List<Object> elements = new ArrayList<>();
        int index = 0;
        while (parser.nextToken() != JsonToken.END_ARRAY) {
            String elementPath = path + "/" + index++;
            if (excludedPointers.contains(elementPath)) {
                parser.skipChildren();
            } else {
                elements.add(readValue(parser, elementPath));
            }
        }
        return elements;
    }

    private static MalformedRequestBodyException duplicateMember(String name, JsonParser parser) {
        return MalformedRequestBodyException.of("duplicate member name (" + name.length()
                + " characters) at " + location(parser), null);
    }

    private static String escapePointerSegment(String name) {
        return name.replace("~", "~0").replace("/", "~1");
    }

    /** Lone surrogates cannot be encoded in UTF-8, and two of them would canonicalise alike. */
    private static String requireWellFormed(String text, JsonParser parser) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw MalformedRequestBodyException.of("a string holds a lone UTF-16 surrogate at "
                        + location(parser), null);
            }
        }
        return text;
    }

    private static String location(JsonParser parser) {
        var location = parser.currentLocation();
        return "line " + location.getLineNr() + ", column " + location.getColumnNr();
    }

    private static String location(JacksonException e) {
        var location = e.getLocation();
        return location == null ? "an unknown position" : "line " + location.getLineNr() + ", column "
                + location.getColumnNr();
    }

    private static void write(Object value, StringBuilder out) {
        switch (value) {
            case Map<?, ?> members -> {
                out.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> member : members.entrySet()) {
                    if (!first) {
                        out.append(',');
                    }
                    first = false;
                    quote((String) member.getKey(), out);
                    out.append(':');
                    write(member.getValue(), out);
                }
                out.append('}');
            }
            case List<?> elements -> {
                out.append('[');
                for (int i = 0; i < elements.size(); i++) {
                    if (i > 0) {
                        out.append(',');
                    }
                    write(elements.get(i), out);
                }
                out.append(']');
            }
            case String text -> quote(text, out);
            case JsonNumber number -> out.append(number.text());
            case Boolean bool -> out.append(bool.booleanValue());
            case JsonNull ignored -> out.append("null");
            default -> throw new IllegalStateException("unexpected node " + value.getClass());
        }
    }

    /** The canonical text of a number, as {@code JsonNumbers.canonical} wrote it for scheme 1. */
    private static String canonicalNumber(BigDecimal value) {
        double asDouble = value.doubleValue();
        if (Double.isFinite(asDouble)) {
            String ecmaScript = ecmaScript(asDouble);
            if (new BigDecimal(ecmaScript).compareTo(value) == 0) {
                return ecmaScript;
            }
        }
        // A double would lose this value; its exact text keeps distinct numbers distinct.
        return value.stripTrailingZeros().toString();
    }

    /**
     * ECMA-262 Number::toString for a finite double. Java's {@link Double#toString(double)} yields the same
     * shortest digits (JDK 19+); only the layout differs.
     */
    private static String ecmaScript(double value) {
        if (value == 0) {
            return "0";
        }
        String sign = value < 0 ? "-" : "";
        BigDecimal shortest = shortestDigits(Math.abs(value));
        String digits = shortest.unscaledValue().toString();
        int k = digits.length();
        int n = k - shortest.scale();
        if (k <= n && n <= 21) {
            return sign + digits + "0".repeat(n - k);
        }
        if (0 < n && n <= 21) {
            return sign + digits.substring(0, n) + "." + digits.substring(n);
        }
        if (-6 < n && n <= 0) {
            return sign + "0." + "0".repeat(-n) + digits;
        }
        int exponent = n - 1;
        String exponentText = (exponent >= 0 ? "e+" : "e-") + Math.abs(exponent);
        return k == 1 ? sign + digits + exponentText
                : sign + digits.charAt(0) + "." + digits.substring(1) + exponentText;
    }

    /**
     * The shortest decimal that reads back as {@code value}. Java prints at least two significant digits
     * ({@code 4.9E-324}) where ECMAScript may need one ({@code 5e-324}), so a one-digit candidate is tried too.
     */
    private static BigDecimal shortestDigits(double value) {
        BigDecimal java = new BigDecimal(Double.toString(value)).stripTrailingZeros();
        if (java.precision() == 2) {
            BigDecimal oneDigit = new BigDecimal(value).round(new MathContext(1, RoundingMode.HALF_EVEN));
            if (oneDigit.doubleValue() == value) {
                return oneDigit.stripTrailingZeros();
            }
        }
        return java;
    }

    /** Appends {@code text} to {@code out} as a quoted JSON string. */
    private static StringBuilder quote(String text, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append("\\u00").append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 0xF, 16));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"');
    }

    /** A number, already in its canonical text. */
    private record JsonNumber(String text) {
    }

    private enum JsonNull { INSTANCE }

    private enum Excluded { INSTANCE }
}
