package io.blockxfer.examples.tables;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Compares a documentation table of rules ({@code | rule | class | checks | proven by ... |}) with a
 * catalogue: one row per rule, none for a rule that does not exist, and in each row the rule's class,
 * what it checks (the table's code spans read without their backticks) and its broken variants as the
 * catalogue gives them. A directory rule's class names its fault in parentheses, {@code capability
 * (CRASH)}; the catalogue has one fault per rule, so the table may name further faults the rule's body
 * requires (D8 needs an OUTAGE before its COMPACTION), provided each is a fault of the kit.
 */
final class RuleTableCheck {

    private static final Pattern CLASS = Pattern.compile("([a-z]+)(?: \\(([A-Z_, ]+)\\))?");

    private RuleTableCheck() {
    }

    /** Whether the table is a rule table: its header starts with rule, class, checks, proven by. */
    static boolean isRuleTable(MarkdownTable table) {
        List<String> h = table.header();
        return h.size() == 4 && h.get(0).equals("rule") && h.get(1).equals("class") && h.get(2).equals("checks")
                && h.get(3).startsWith("proven by");
    }

    /**
     * What differs between the table and the catalogue, one message per difference, each naming the
     * page and line; empty when they agree.
     */
    static List<String> differences(String page, MarkdownTable table, List<CatalogueEntry> catalogue,
            Set<String> faults) {
        Map<String, CatalogueEntry> byId = new LinkedHashMap<>();
        catalogue.forEach(e -> byId.put(e.id(), e));
        List<String> out = new ArrayList<>();
        Map<String, Integer> seen = new LinkedHashMap<>();
        for (MarkdownTable.Row row : table.rows()) {
            String where = page + ":" + row.line() + ": ";
            if (row.cells().size() != 4) {
                out.add(where + "a rule row has 4 cells, this one " + row.cells().size());
                continue;
            }
            String id = row.cells().get(0);
            CatalogueEntry rule = byId.get(id);
            if (rule == null) {
                out.add(where + "no rule " + id + " in the catalogue");
                continue;
            }
            Integer first = seen.putIfAbsent(id, row.line());
            if (first != null) {
                out.add(where + id + " is listed again (first at line " + first + ")");
                continue;
            }
            classDifference(rule, row.cells().get(1), faults).ifPresent(d -> out.add(where + id + ": " + d));
            String checks = row.cells().get(2).replace("`", "");
            if (!checks.equals(rule.checks())) {
                out.add(where + id + " checks \"" + checks + "\", the catalogue says \"" + rule.checks() + "\"");
            }
            if (!row.cells().get(3).equals(rule.provenBy())) {
                out.add(where + id + " is proven by \"" + row.cells().get(3) + "\", the catalogue says \""
                        + rule.provenBy() + "\"");
            }
        }
        List<String> missing = byId.keySet().stream().filter(id -> !seen.containsKey(id)).toList();
        if (!missing.isEmpty()) {
            out.add(page + ":" + table.line() + ": the table has no row for " + String.join(", ", missing));
        }
        return out;
    }

    private static Optional<String> classDifference(CatalogueEntry rule, String cell, Set<String> faults) {
        Matcher m = CLASS.matcher(cell);
        if (!m.matches()) {
            return Optional.of("the class \"" + cell + "\" is not a class word with faults in parentheses");
        }
        if (!m.group(1).equals(rule.kind())) {
            return Optional.of("the class is " + m.group(1) + ", the catalogue says " + rule.kind());
        }
        List<String> named = m.group(2) == null ? List.of()
                : Arrays.stream(m.group(2).split(",", -1)).map(String::strip).toList();
        String expected = rule.fault();
        if (expected == null ? !named.isEmpty() : named.isEmpty() || !named.get(0).equals(expected)) {
            return Optional.of("the table names the faults " + named + ", the catalogue "
                    + (expected == null ? "none" : expected + " (first)"));
        }
        String unknown = named.stream().filter(f -> !faults.contains(f)).collect(Collectors.joining(", "));
        return unknown.isEmpty() ? Optional.empty() : Optional.of("no fault " + unknown + " in the kit");
    }
}
