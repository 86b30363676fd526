package io.blockxfer.cli.internal;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * A plain-text table with a header row, columns padded to their widest cell, optional
 * right-aligned (numeric) columns, and free-text note lines between rows.
 *
 * <p><b>Thread safety:</b> not thread-safe.
 */
public final class Table {

    private final String[] header;
    private final List<Object> lines = new ArrayList<>();
    private final BitSet right = new BitSet();

    /** A table with these column titles. */
    public Table(String... header) {
        this.header = header.clone();
    }

    /** Right-aligns the given columns. */
    public Table alignRight(int... columns) {
        for (int c : columns) {
            right.set(c);
        }
        return this;
    }

    /** Adds a row; it must have one cell per column. */
    public Table row(String... cells) {
        if (cells.length != header.length) {
            throw new IllegalArgumentException("row has " + cells.length + " cells, table " + header.length);
        }
        lines.add(cells.clone());
        return this;
    }

    /** Adds a line of text that is not part of the columns. */
    public Table note(String text) {
        lines.add(text);
        return this;
    }

    /** Prints the table. */
    public void print(PrintWriter out) {
        int[] width = new int[header.length];
        for (int c = 0; c < header.length; c++) {
            width[c] = header[c].length();
        }
        for (Object line : lines) {
            if (line instanceof String[] cells) {
                for (int c = 0; c < cells.length; c++) {
                    width[c] = Math.max(width[c], cells[c].length());
                }
            }
        }
        out.println(format(header, width));
        for (Object line : lines) {
            out.println(line instanceof String[] cells ? format(cells, width) : line);
        }
        out.flush();
    }

    private String format(String[] cells, int[] width) {
        StringBuilder sb = new StringBuilder();
        for (int c = 0; c < cells.length; c++) {
            if (c > 0) {
                sb.append("  ");
            }
            String pad = " ".repeat(width[c] - cells[c].length());
            boolean last = c == cells.length - 1;
            if (right.get(c)) {
                sb.append(pad).append(cells[c]);
            } else {
                sb.append(cells[c]).append(last ? "" : pad);
            }
        }
        return sb.toString();
    }
}
