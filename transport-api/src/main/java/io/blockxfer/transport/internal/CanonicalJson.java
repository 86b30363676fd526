package io.blockxfer.transport.internal;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Writes values as Python's {@code json.dumps(v, sort_keys=True, separators=(",", ":"))} does, so
 * that fingerprints computed in Java and in Python agree byte for byte: ASCII-only output with
 * lowercase {@code \\uXXXX} escapes, keys sorted by code point, floats in Python's shortest
 * {@code repr} form.
 *
 * <p><b>Thread safety:</b> stateless.
 */
public final class CanonicalJson {

    private static final Comparator<String> BY_CODE_POINT = (a, b) -> {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i);
            int cb = b.codePointAt(j);
            if (ca != cb) {
                return Integer.compare(ca, cb);
            }
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Boolean.compare(i < a.length(), j < b.length());
    };

    private CanonicalJson() {
    }

    /**
     * The canonical JSON text of {@code value}: {@code null}, {@link Boolean}, {@link CharSequence},
     * {@link Character}, {@link Enum} (its name), integral {@link Number}s, {@link Float},
     * {@link Double}, {@link BigDecimal}, {@link Map} with {@code String} keys, {@link Iterable}
     * and arrays.
     *
     * @throws IllegalArgumentException for any other type or a non-string map key
     */
    public static String write(@Nullable Object value) {
        StringBuilder out = new StringBuilder();
        write(value, out, 0);
        return out.toString();
    }

    private static void write(@Nullable Object value, StringBuilder out, int depth) {
        if (depth > 100) {
            throw new IllegalArgumentException("config fields nest deeper than 100 levels");
        }
        switch (value) {
            case null -> out.append("null");
            case Boolean b -> out.append(b ? "true" : "false");
            case CharSequence s -> writeString(s.toString(), out);
            case Character c -> writeString(c.toString(), out);
            case Enum<?> e -> writeString(e.name(), out);
            case Byte n -> out.append(n.longValue());
            case Short n -> out.append(n.longValue());
            case Integer n -> out.append(n.longValue());
            case Long n -> out.append(n.longValue());
            case BigInteger n -> out.append(n);
            case Float f -> writeFloat(f.doubleValue(), out);
            case Double d -> writeFloat(d, out);
            case BigDecimal d -> writeFloat(d.doubleValue(), out);
            case Map<?, ?> m -> writeMap(m, out, depth);
            case Iterable<?> it -> {
                out.append('[');
                boolean first = true;
                for (Object o : it) {
                    if (!first) {
                        out.append(',');
                    }
                    first = false;
                    write(o, out, depth + 1);
                }
                out.append(']');
            }
            case Object[] arr -> writeArray(java.util.Arrays.asList(arr), out, depth);
            case int[] arr -> writeArray(java.util.Arrays.stream(arr).boxed().toList(), out, depth);
            case long[] arr -> writeArray(java.util.Arrays.stream(arr).boxed().toList(), out, depth);
            case double[] arr -> writeArray(java.util.Arrays.stream(arr).boxed().toList(), out, depth);
            default -> throw new IllegalArgumentException(
                    "config field value of type " + value.getClass().getName() + " has no JSON form");
        }
    }

    private static void writeArray(List<?> list, StringBuilder out, int depth) {
        write(list, out, depth);
    }

    private static void writeMap(Map<?, ?> map, StringBuilder out, int depth) {
        List<String> keys = new ArrayList<>(map.size());
        for (Object k : map.keySet()) {
            if (!(k instanceof String s)) {
                throw new IllegalArgumentException("config field keys must be strings, got: " + k);
            }
            keys.add(s);
        }
        keys.sort(BY_CODE_POINT);
        out.append('{');
        for (int i = 0; i < keys.size(); i++) {
            if (i > 0) {
                out.append(',');
            }
            writeString(keys.get(i), out);
            out.append(':');
            write(map.get(keys.get(i)), out, depth + 1);
        }
        out.append('}');
    }

    private static void writeString(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> {
                    if (c < 0x20 || c > 0x7e) {
                        out.append("\\u");
                        String hex = Integer.toHexString(c);
                        out.append("0".repeat(4 - hex.length())).append(hex);
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    /** Python's {@code float.__repr__}, as {@code json} writes it. */
    static void writeFloat(double d, StringBuilder out) {
        if (Double.isNaN(d)) {
            out.append("NaN");
            return;
        }
        if (Double.isInfinite(d)) {
            out.append(d > 0 ? "Infinity" : "-Infinity");
            return;
        }
        if (d == 0) {
            out.append(1 / d < 0 ? "-0.0" : "0.0");
            return;
        }
        if (d < 0) {
            out.append('-');
            d = -d;
        }
        // Java's Double.toString yields the shortest digits that round-trip, as Python's repr does.
        BigDecimal exact = new BigDecimal(Double.toString(d)).stripTrailingZeros();
        if (exact.precision() == 2) {
            // Java prints at least two digits; Python prefers one when one round-trips (5e-324).
            BigDecimal one = exact.round(new java.math.MathContext(1, java.math.RoundingMode.HALF_EVEN));
            if (Double.parseDouble(one.toString()) == d) {
                exact = one.stripTrailingZeros();
            }
        }
        String digits = exact.unscaledValue().toString();
        int decpt = digits.length() - exact.scale(); // value = 0.<digits> * 10^decpt
        if (decpt > -4 && decpt <= 16) {
            if (decpt <= 0) {
                out.append("0.").append("0".repeat(-decpt)).append(digits);
            } else if (decpt < digits.length()) {
                out.append(digits, 0, decpt).append('.').append(digits, decpt, digits.length());
            } else {
                out.append(digits).append("0".repeat(decpt - digits.length())).append(".0");
            }
        } else {
            out.append(digits.charAt(0));
            if (digits.length() > 1) {
                out.append('.').append(digits, 1, digits.length());
            }
            int exp = decpt - 1;
            out.append('e').append(exp < 0 ? '-' : '+');
            int abs = Math.abs(exp);
            if (abs < 10) {
                out.append('0');
            }
            out.append(abs);
        }
    }
}
