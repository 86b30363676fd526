package io.blockxfer.examples.tables;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Every entry of docs/troubleshooting.md is found by searching for its message: its heading, a fragment of
 * an error message in a code span, is inside a string literal of some module's main sources, and the entry
 * says the cause and the fix. A message reworded in the code fails this test at the entry's line until the
 * heading follows ({@link TroubleshootingCheckTest} shows it caught). The page must exist.
 */
class TroubleshootingTest {

    private static final String PAGE = "docs/troubleshooting.md";

    @Test
    @DisplayName("every troubleshooting entry names a message the code has, with its cause and its fix")
    void everyEntryIsAMessageOfTheCode() {
        var problems = Troubleshooting.problems(PAGE, RepoFiles.lines(PAGE), Troubleshooting.literalsOfMainSources());
        assertTrue(problems.isEmpty(), problems.size() + " problems:\n" + String.join("\n", problems));
    }
}
