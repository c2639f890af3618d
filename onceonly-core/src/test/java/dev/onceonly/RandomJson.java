package dev.onceonly;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Random JSON values for property tests, and random spellings of them: member order, whitespace, number forms
 * and string escapes vary while the value stays the same.
 */
final class RandomJson {

    private static final String ALPHABET = "abcXYZ019 _-\"\\/\n\t\u0001\u00e9\u20ac\ud83d\ude00";

    private RandomJson() {
    }

    /** A value tree of maps, lists, strings, BigDecimals, booleans and {@link #NULL}. */
    static Object value(Random random, int depth) {
        int kind = random.nextInt(depth <= 0 ? 4 : 6);
        return switch (kind) {
            case 0 -> string(random);
            case 1 -> number(random);
            case 2 -> random.nextBoolean();
            case 3 -> NULL;
            case 4 -> {
                Map<String, Object> members = new LinkedHashMap<>();
                int size = random.nextInt(5);
                for (int i = 0; i < size; i++) {
                    members.put(string(random), value(random, depth - 1));
                }
                yield members;
            }
            default -> {
                List<Object> elements = new ArrayList<>();
                int size = random.nextInt(5);
                for (int i = 0; i < size; i++) {
                    elements.add(value(random, depth - 1));
                }
                yield elements;
            }
        };
    }

    static final Object NULL = new Object() {
        @Override
        public String toString() {
            return "null";
        }
    };

    private static String string(Random random) {
        int length = random.nextInt(6);
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < length; i++) {
            int at = random.nextInt(ALPHABET.length());
            char c = ALPHABET.charAt(at);
            if (Character.isHighSurrogate(c)) {
                text.append(c).append(ALPHABET.charAt(at + 1));
            } else if (!Character.isLowSurrogate(c)) {
                text.append(c);
            }
        }
        return text.toString();
    }

    private static BigDecimal number(Random random) {
        return switch (random.nextInt(4)) {
            case 0 -> BigDecimal.valueOf(random.nextInt(2001) - 1000);
            case 1 -> BigDecimal.valueOf(random.nextLong(), random.nextInt(8));
            case 2 -> new BigDecimal(BigInteger.valueOf(Long.MAX_VALUE).add(BigInteger.valueOf(random.nextInt(1000))));
            default -> BigDecimal.valueOf(random.nextDouble() * 1e6);
        };
    }

    /** One of many spellings of {@code value}; {@code random} chooses order, whitespace and forms. */
    static String spell(Object value, Random random) {
        StringBuilder out = new StringBuilder();
        spell(value, random, out);
        return out.toString();
    }

    private static void spell(Object value, Random random, StringBuilder out) {
        space(random, out);
        switch (value) {
            case Map<?, ?> members -> {
                List<Map.Entry<?, ?>> entries = new ArrayList<>(members.entrySet());
                Collections.shuffle(entries, random);
                out.append('{');
                for (int i = 0; i < entries.size(); i++) {
                    if (i > 0) {
                        out.append(',');
                    }
                    space(random, out);
                    spellString((String) entries.get(i).getKey(), random, out);
                    space(random, out);
                    out.append(':');
                    spell(entries.get(i).getValue(), random, out);
                }
                space(random, out);
                out.append('}');
            }
            case List<?> elements -> {
                out.append('[');
                for (int i = 0; i < elements.size(); i++) {
                    if (i > 0) {
                        out.append(',');
                    }
                    spell(elements.get(i), random, out);
                }
                space(random, out);
                out.append(']');
            }
            case String text -> spellString(text, random, out);
            case BigDecimal number -> out.append(spellNumber(number, random));
            case Boolean bool -> out.append(bool);
            default -> out.append("null");
        }
        space(random, out);
    }

    private static void space(Random random, StringBuilder out) {
        for (int i = random.nextInt(3); i > 0; i--) {
            out.append(" \n\t\r".charAt(random.nextInt(4)));
        }
    }

    private static void spellString(String text, Random random, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c)) {
                // A pair is escaped whole or not at all: half of it cannot be written as UTF-8.
                boolean escape = random.nextBoolean();
                for (char half : new char[] {c, text.charAt(++i)}) {
                    out.append(escape ? String.format("\\u%04x", (int) half) : String.valueOf(half));
                }
            } else if (c == '"' || c == '\\' || c < 0x20 || random.nextInt(4) == 0) {
                out.append(String.format("\\u%04X", (int) c));
            } else if (c == '/' && random.nextBoolean()) {
                out.append("\\/");
            } else {
                out.append(c);
            }
        }
        out.append('"');
    }

    private static String spellNumber(BigDecimal number, Random random) {
        BigDecimal value = number.stripTrailingZeros();
        return switch (random.nextInt(5)) {
            case 0 -> value.toPlainString();
            case 1 -> value.setScale(Math.max(value.scale(), 0) + 2).toPlainString();
            case 2 -> value.unscaledValue() + "e" + (-value.scale());
            case 3 -> value.signum() == 0 ? "0E7" : value.unscaledValue() + "0E" + (-value.scale() - 1);
            default -> value.toString().replace("E", "e");
        };
    }

    /** {@code value} with one leaf changed, so that it means something else. */
    static Object mutate(Object value, Random random) {
        switch (value) {
            case Map<?, ?> members when !members.isEmpty() -> {
                Map<Object, Object> copy = new LinkedHashMap<>(members);
                Object name = new ArrayList<>(copy.keySet()).get(random.nextInt(copy.size()));
                copy.put(name, mutate(copy.get(name), random));
                return copy;
            }
            case List<?> elements when !elements.isEmpty() -> {
                List<Object> copy = new ArrayList<>(elements);
                int at = random.nextInt(copy.size());
                copy.set(at, mutate(copy.get(at), random));
                return copy;
            }
            case Map<?, ?> empty -> {
                return Map.of("added", 1);
            }
            case List<?> empty -> {
                return List.of(NULL);
            }
            case String text -> {
                return text + "x";
            }
            case BigDecimal number -> {
                return number.add(BigDecimal.ONE.movePointLeft(Math.max(number.scale(), 0)));
            }
            case Boolean bool -> {
                return !bool;
            }
            default -> {
                return BigDecimal.ZERO;
            }
        }
    }
}
