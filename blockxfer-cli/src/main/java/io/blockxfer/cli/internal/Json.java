package io.blockxfer.cli.internal;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Collection;
import java.util.Locale;
import java.util.Map;

/**
 * A tiny JSON writer for the CLI's reports: renders maps (objects, in their iteration order),
 * collections (arrays), strings, numbers, booleans and {@code null}. Non-finite numbers become
 * {@code null}.
 *
 * <p><b>Thread safety:</b> stateless.
 */
public final class Json {

    private static final MathContext SIGNIFICANT = new MathContext(6);

    private Json() {
    }

    /** {@code value} as compact JSON. */
    public static String write(Object value) {
        StringBuilder sb = new StringBuilder();
        write(sb, value, -1);
        return sb.toString();
    }

    /** {@code value} as JSON with one element of a top-level array or object per line. */
    public static String writeLines(Object value) {
        StringBuilder sb = new StringBuilder();
        write(sb, value, 0);
        return sb.toString();
    }

    private static void write(StringBuilder sb, Object value, int depth) {
        switch (value) {
            case null -> sb.append("null");
            case String s -> string(sb, s);
            case Boolean b -> sb.append(b);
            case Double d -> number(sb, d);
            case Float f -> number(sb, f.doubleValue());
            case Number n -> sb.append(n.longValue());
            case Enum<?> e -> string(sb, e.name());
            case Map<?, ?> m -> {
                sb.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    separator(sb, first, depth);
                    first = false;
                    string(sb, String.valueOf(e.getKey()));
                    sb.append(':');
                    write(sb, e.getValue(), -1);
                }
                close(sb, '}', first, depth);
            }
            case Collection<?> c -> {
                sb.append('[');
                boolean first = true;
                for (Object o : c) {
                    separator(sb, first, depth);
                    first = false;
                    write(sb, o, -1);
                }
                close(sb, ']', first, depth);
            }
            default -> string(sb, value.toString());
        }
    }

    private static void separator(StringBuilder sb, boolean first, int depth) {
        if (!first) {
            sb.append(',');
        }
        if (depth == 0) {
            sb.append("\n  ");
        }
    }

    private static void close(StringBuilder sb, char bracket, boolean empty, int depth) {
        if (depth == 0 && !empty) {
            sb.append('\n');
        }
        sb.append(bracket);
    }

    private static void number(StringBuilder sb, double d) {
        if (!Double.isFinite(d)) {
            sb.append("null");
        } else if (d == Math.rint(d) && Math.abs(d) < 1e15) {
            sb.append((long) d);
        } else {
            sb.append(new BigDecimal(d).round(SIGNIFICANT).stripTrailingZeros().toPlainString());
        }
    }

    private static void string(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
