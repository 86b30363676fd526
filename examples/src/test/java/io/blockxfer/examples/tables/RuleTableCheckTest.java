package io.blockxfer.examples.tables;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The rule table check finds each kind of drift between a table and its catalogue, and nothing in a true table. */
class RuleTableCheckTest {

    private static final List<CatalogueEntry> CATALOGUE = List.of(
            new CatalogueEntry("W1", "required", null, "a one-block WRITE lands", "writes-one-block-off"),
            new CatalogueEntry("D8", "capability", "COMPACTION", "the watch resyncs", "resync-without-deletes"),
            new CatalogueEntry("T1", "timing", null, "polls alone end a transfer", "polls-do-not-drive, x"));
    private static final Set<String> FAULTS = Set.of("COMPACTION", "OUTAGE");

    private static final String HEADER = """
            | rule | class | checks | proven by the broken backend |
            |---|---|---|---|
            """;
    private static final String TRUE_ROWS = """
            | W1 | required | a one-block `WRITE` lands | writes-one-block-off |
            | D8 | capability (COMPACTION, OUTAGE) | the watch resyncs | resync-without-deletes |
            | T1 | timing | polls alone end a transfer | polls-do-not-drive, x |
            """;

    @Test
    void aTableThatSaysWhatTheCatalogueSaysPasses() {
        assertEquals(List.of(), differences(TRUE_ROWS));
    }

    @Test
    void aMissingRuleIsNamed() {
        assertOne(TRUE_ROWS.lines().filter(l -> !l.startsWith("| T1")).map(l -> l + "\n")
                .reduce("", String::concat), "page.md:1: the table has no row for T1");
    }

    @Test
    void aRuleThatDoesNotExistIsNamed() {
        assertOne(TRUE_ROWS + "| W99 | required | nothing | none |\n", "page.md:6: no rule W99 in the catalogue");
    }

    @Test
    void aRuleListedTwiceIsNamed() {
        assertOne(TRUE_ROWS + "| W1 | required | a one-block WRITE lands | writes-one-block-off |\n",
                "page.md:6: W1 is listed again (first at line 3)");
    }

    @Test
    void anotherClassIsNamed() {
        assertOne(TRUE_ROWS.replace("| T1 | timing", "| T1 | required"),
                "page.md:5: T1: the class is required, the catalogue says timing");
    }

    @Test
    void aFaultOtherThanTheCataloguesIsNamed() {
        assertOne(TRUE_ROWS.replace("(COMPACTION, OUTAGE)", "(OUTAGE)"),
                "page.md:4: D8: the table names the faults [OUTAGE], the catalogue COMPACTION (first)");
        assertOne(TRUE_ROWS.replace("(COMPACTION, OUTAGE)", "(COMPACTION, FLOOD)"),
                "page.md:4: D8: no fault FLOOD in the kit");
        assertOne(TRUE_ROWS.replace("| T1 | timing", "| T1 | timing (OUTAGE)"),
                "page.md:5: T1: the table names the faults [OUTAGE], the catalogue none");
    }

    @Test
    void otherWordsForWhatARuleChecksAreNamed() {
        assertOne(TRUE_ROWS.replace("a one-block `WRITE` lands", "a one-block WRITE lands somewhere"),
                "page.md:3: W1 checks \"a one-block WRITE lands somewhere\", the catalogue says \"a one-block WRITE"
                        + " lands\"");
    }

    @Test
    void anotherBrokenVariantIsNamed() {
        assertOne(TRUE_ROWS.replace("polls-do-not-drive, x", "polls-do-not-drive"),
                "page.md:5: T1 is proven by \"polls-do-not-drive\", the catalogue says \"polls-do-not-drive, x\"");
    }

    @Test
    void aRowWithAnotherNumberOfCellsIsNamed() {
        assertOne(TRUE_ROWS + "| W2 | required | a batch |\n", "page.md:6: a rule row has 4 cells, this one 3");
    }

    @Test
    void onlyTablesWithTheRuleColumnsAreRuleTables() {
        List<MarkdownTable> tables = MarkdownTable.parse((HEADER + TRUE_ROWS + "\n| rule | skipped in | why |\n"
                + "|---|---|---|\n| R3 | every suite | READ |\n").lines().toList());
        assertEquals(2, tables.size());
        assertTrue(RuleTableCheck.isRuleTable(tables.get(0)));
        assertFalse(RuleTableCheck.isRuleTable(tables.get(1)));
    }

    private static void assertOne(String rows, String difference) {
        assertEquals(List.of(difference), differences(rows));
    }

    private static List<String> differences(String rows) {
        MarkdownTable table = MarkdownTable.parse((HEADER + rows).lines().toList()).getFirst();
        return RuleTableCheck.differences("page.md", table, CATALOGUE, FAULTS);
    }
}
