package io.blockxfer.examples.tables;

import java.util.ArrayList;
import java.util.List;

/**
 * The string literals of a Java source file, with their values as the compiler reads them (escapes
 * translated, text blocks stripped of their incidental indentation); comments and character literals are
 * skipped.
 */
final class JavaStringLiterals {

    /** A literal: the line it starts on (from 1) and its value. */
    record Literal(int line, String value) {
    }

    private JavaStringLiterals() {
    }

    /** Every string literal of the source, in order. */
    static List<Literal> of(String source) {
        List<Literal> out = new ArrayList<>();
        int line = 1;
        int i = 0;
        int n = source.length();
        while (i < n) {
            char c = source.charAt(i);
            if (c == '\n') {
                line++;
                i++;
            } else if (source.startsWith("//", i)) {
                i = source.indexOf('\n', i) < 0 ? n : source.indexOf('\n', i);
            } else if (source.startsWith("/*", i)) {
                int end = source.indexOf("*/", i + 2);
                end = end < 0 ? n : end + 2;
                line += lines(source, i, end);
                i = end;
            } else if (source.startsWith("\"\"\"", i)) {
                int start = source.indexOf('\n', i) + 1;
                int end = closing(source, start, "\"\"\"");
                out.add(new Literal(line, value(source.substring(start, end).stripIndent())));
                line += lines(source, i, end);
                i = end + 3;
            } else if (c == '"' || c == '\'') {
                int end = closing(source, i + 1, String.valueOf(c));
                if (c == '"') {
                    out.add(new Literal(line, value(source.substring(i + 1, end))));
                }
                i = end + 1;
            } else {
                i++;
            }
        }
        return out;
    }

    /** The value of a literal's text: unicode escapes ({@code \\u0041}) first, as the compiler reads them, then the others. */
    private static String value(String text) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\\' && i + 1 < text.length() && text.charAt(i + 1) == '\\') {
                out.append("\\\\");
                i++;
            } else if (c == '\\' && i + 1 < text.length() && text.charAt(i + 1) == 'u') {
                int hex = i + 1;
                while (text.charAt(hex) == 'u') {
                    hex++;
                }
                out.append((char) Integer.parseInt(text.substring(hex, hex + 4), 16));
                i = hex + 3;
            } else {
                out.append(c);
            }
        }
        return out.toString().translateEscapes();
    }

    /** The index of the unescaped {@code quote} at or after {@code from}. */
    private static int closing(String source, int from, String quote) {
        int i = from;
        while (!source.startsWith(quote, i)) {
            if (i >= source.length()) {
                throw new IllegalArgumentException("an unterminated literal from index " + from);
            }
            i += source.charAt(i) == '\\' ? 2 : 1;
        }
        return i;
    }

    private static int lines(String source, int from, int to) {
        return (int) source.substring(from, to).chars().filter(ch -> ch == '\n').count();
    }
}
