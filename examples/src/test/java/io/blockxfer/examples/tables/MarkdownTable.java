package io.blockxfer.examples.tables;

import java.util.ArrayList;
import java.util.List;

/**
 * A pipe table of a markdown page: its header cells and its rows, each with its line number (from 1).
 * Cells are split at every unescaped {@code |}, trimmed, with {@code \|} read as {@code |}; tables inside
 * fenced code blocks are not tables.
 */
record MarkdownTable(int line, List<String> header, List<Row> rows) {

    /** A row of a table: its line number (from 1) and its cells. */
    record Row(int line, List<String> cells) {
    }

    /** Every table of a page, in order. */
    static List<MarkdownTable> parse(List<String> lines) {
        List<MarkdownTable> tables = new ArrayList<>();
        boolean fenced = false;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.startsWith("```")) {
                fenced = !fenced;
                continue;
            }
            if (fenced || !isRow(line) || i + 1 >= lines.size() || !isDelimiter(lines.get(i + 1).strip())) {
                continue;
            }
            List<String> header = cells(line);
            List<Row> rows = new ArrayList<>();
            int j = i + 2;
            for (; j < lines.size() && isRow(lines.get(j).strip()); j++) {
                rows.add(new Row(j + 1, cells(lines.get(j).strip())));
            }
            tables.add(new MarkdownTable(i + 1, header, List.copyOf(rows)));
            i = j - 1;
        }
        return List.copyOf(tables);
    }

    private static boolean isRow(String line) {
        return line.startsWith("|") && line.endsWith("|") && line.length() > 1;
    }

    private static boolean isDelimiter(String line) {
        return isRow(line) && line.matches("\\|(\\s*:?-+:?\\s*\\|)+");
    }

    /** The cells of a row {@code | a | b |}. */
    static List<String> cells(String row) {
        List<String> cells = new ArrayList<>();
        StringBuilder cell = new StringBuilder();
        for (int i = 1; i < row.length() - 1; i++) {
            char c = row.charAt(i);
            if (c == '\\' && row.charAt(i + 1) == '|') {
                cell.append('|');
                i++;
            } else if (c == '|') {
                cells.add(cell.toString().strip());
                cell.setLength(0);
            } else {
                cell.append(c);
            }
        }
        cells.add(cell.toString().strip());
        return List.copyOf(cells);
    }
}
