package io.blockxfer.examples.tables;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.tck.directory.DirectoryFault;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The kits' rule lists in the documentation say what the catalogues say: docs/certifying-a-backend.md
 * ({@code ConformanceRules}), transport-directory/README.md ({@code DirectoryRules}) and docs/holds.md
 * ({@code HoldRules}, which the page counts but does not list). A rule added, removed, reclassified or
 * reworded in a catalogue fails these tests until its table row follows ({@link RuleTableCheckTest}
 * shows each kind of drift caught).
 *
 * <p>The column of broken variants is compared with the catalogue's {@code provenBy()}; the kit's own
 * tests ({@code BrokenBackendsAreCaughtTest}, {@code BrokenDirectoriesAreCaughtTest} and
 * {@code BrokenHoldsAreCaughtTest}, each {@code everyRuleIsProvenBy...}) check that every name
 * {@code provenBy()} gives is a broken variant they run against that rule, so a row names only variants
 * that exist and catch their rule.
 */
class RuleTablesTest {

    private static final String TRANSPORT_KIT = "docs/certifying-a-backend.md";
    private static final String DIRECTORY_KIT = "transport-directory/README.md";
    private static final String HOLDS_KIT = "docs/holds.md";

    @Test
    @DisplayName("the transport kit's rule table has one row per ConformanceRules entry, as the entry gives it")
    void transportKitTable() {
        assertTableMatches(TRANSPORT_KIT, CatalogueEntry.conformanceRules(), Set.of());
    }

    @Test
    @DisplayName("the directory kit's rule table has one row per DirectoryRules entry, as the entry gives it")
    void directoryKitTable() {
        assertTableMatches(DIRECTORY_KIT, CatalogueEntry.directoryRules(),
                Arrays.stream(DirectoryFault.values()).map(Enum::name).collect(Collectors.toSet()));
    }

    @Test
    @DisplayName("every other table of the transport kit's page whose first column is rule names rules that exist")
    void otherRuleColumnsNameRulesThatExist() {
        Set<String> ids = CatalogueEntry.conformanceRules().stream().map(CatalogueEntry::id)
                .collect(Collectors.toSet());
        List<String> unknown = new ArrayList<>();
        for (MarkdownTable table : MarkdownTable.parse(RepoFiles.lines(TRANSPORT_KIT))) {
            if (RuleTableCheck.isRuleTable(table) || !table.header().get(0).equals("rule")) {
                continue;
            }
            for (MarkdownTable.Row row : table.rows()) {
                for (String id : row.cells().get(0).split(",", -1)) {
                    if (!ids.contains(id.strip())) {
                        unknown.add(TRANSPORT_KIT + ":" + row.line() + ": no rule " + id.strip());
                    }
                }
            }
        }
        assertTrue(unknown.isEmpty(), String.join("\n", unknown));
    }

    @Test
    @DisplayName("the transport kit's page gives the number of rules and their groups as the catalogue has them")
    void transportKitCount() {
        String page = String.join("\n", RepoFiles.lines(TRANSPORT_KIT));
        Matcher m = Pattern.compile("The suite has (\\d+) rules in `@Nested` groups by area \\(([^)]*)\\)")
                .matcher(page);
        assertTrue(m.find(), TRANSPORT_KIT + " no longer says \"The suite has N rules in `@Nested` groups by area"
                + " (...)\"; this test reads it");
        List<CatalogueEntry> rules = CatalogueEntry.conformanceRules();
        assertEquals(rules.size(), Integer.parseInt(m.group(1)), TRANSPORT_KIT + " counts the rules wrong");
        Set<String> groups = Arrays.stream(m.group(2).replaceAll("\\s+", " ").split(",", -1))
                .map(g -> g.strip().split(" ", -1)[0]).collect(Collectors.toSet());
        assertEquals(letters(rules), groups, TRANSPORT_KIT + " lists the groups by their letters wrong");
    }

    @Test
    @DisplayName("the directory kit's page gives the number of rules the catalogue has")
    void directoryKitCount() {
        String page = String.join("\n", RepoFiles.lines(DIRECTORY_KIT));
        Matcher m = Pattern.compile("runs the (\\d+) rules against").matcher(page);
        assertTrue(m.find(), DIRECTORY_KIT + " no longer says \"runs the N rules against\"; this test reads it");
        assertEquals(CatalogueEntry.directoryRules().size(), Integer.parseInt(m.group(1)),
                DIRECTORY_KIT + " counts the rules wrong");
    }

    @Test
    @DisplayName("the holds page gives the number of hold rules and the range of their ids as the catalogue has them")
    void holdsKitCount() {
        String page = String.join("\n", RepoFiles.lines(HOLDS_KIT)).replaceAll("\\s+", " ");
        Matcher m = Pattern.compile("(\\d+) rules `\\[(H\\d+)\\]`-`\\[(H\\d+)\\]`").matcher(page);
        assertTrue(m.find(), HOLDS_KIT + " no longer says \"N rules `[H1]`-`[Hn]`\"; this test reads it");
        List<CatalogueEntry> rules = CatalogueEntry.holdRules();
        assertEquals(rules.size(), Integer.parseInt(m.group(1)), HOLDS_KIT + " counts the rules wrong");
        assertEquals(rules.getFirst().id() + "-" + rules.getLast().id(), m.group(2) + "-" + m.group(3),
                HOLDS_KIT + " gives the range of ids wrong");
    }

    private static void assertTableMatches(String page, List<CatalogueEntry> catalogue, Set<String> faults) {
        List<MarkdownTable> tables = MarkdownTable.parse(RepoFiles.lines(page)).stream()
                .filter(RuleTableCheck::isRuleTable).toList();
        assertEquals(1, tables.size(), page + " must have one rule table (| rule | class | checks | proven by |),"
                + " it has " + tables.size());
        List<String> differences = RuleTableCheck.differences(page, tables.getFirst(), catalogue, faults);
        assertTrue(differences.isEmpty(), differences.size() + " differences:\n" + String.join("\n", differences));
    }

    private static Set<String> letters(List<CatalogueEntry> rules) {
        return rules.stream().map(r -> r.id().replaceAll("\\d", "")).collect(Collectors.toSet());
    }
}
