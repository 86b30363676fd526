package io.blockxfer.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The snippet check on a page and a source held in memory: it passes what matches and names each drift. */
class SnippetCheckTest {

    private static final String SOURCE = """
            class Example {
                void write(DataTransport transport) {
                    // @start region="write"
                    long id = transport.writeBlocks("decode-3", new int[] {4}, new int[] {10});

                    transport.poll("decode-3");
                    // @end region="write"
                }
            }
            """;

    private static final String MARKER = "<!-- snippet: ex/Example.java#write -->";

    private static List<String> problems(String page, String source) {
        return new SnippetCheck(path -> Optional.ofNullable(Map.of("ex/Example.java", source).get(path)))
                .page("docs/page.md", page)
                .everyRegionIncluded(List.of("ex/Example.java"))
                .problems();
    }

    private static String page(String marker, String... block) {
        return "# A page\n\nSome words.\n" + marker + "\n```java\n" + String.join("\n", block) + "\n```\n\nMore words.\n";
    }

    @Test
    void aBlockEqualToItsRegionWithoutItsIndentationPasses() {
        assertEquals(List.of(), problems(page(MARKER,
                "long id = transport.writeBlocks(\"decode-3\", new int[] {4}, new int[] {10});",
                "",
                "transport.poll(\"decode-3\");"), SOURCE));
    }

    @Test
    void aSourceThatChangedIsCaughtAtTheFirstLineThatDiffers() {
        String renamed = SOURCE.replace("transport.poll(\"decode-3\");", "transport.pollAll();");
        List<String> problems = problems(page(MARKER,
                "long id = transport.writeBlocks(\"decode-3\", new int[] {4}, new int[] {10});",
                "",
                "transport.poll(\"decode-3\");"), renamed);
        assertEquals(1, problems.size(), problems.toString());
        assertEquals("""
                docs/page.md:8: the block differs from ex/Example.java#write at its line 3:
                    page:   transport.poll("decode-3");
                    source: transport.pollAll();""", problems.getFirst());
    }

    @Test
    void aBlockShorterOrLongerThanItsRegionIsCaught() {
        List<String> shorter = problems(page(MARKER,
                "long id = transport.writeBlocks(\"decode-3\", new int[] {4}, new int[] {10});"), SOURCE);
        assertEquals(1, shorter.size(), shorter.toString());
        assertTrue(shorter.getFirst().contains("at its line 2") && shorter.getFirst().contains("page:   (no such line)"),
                shorter.getFirst());
    }

    @Test
    void aBlockWithoutAMarkerIsCaughtWithItsLine() {
        List<String> problems = problems(page("", "transport.poll(\"decode-3\");"), SOURCE);
        assertTrue(problems.getFirst().startsWith("docs/page.md:5: a ```java block without a snippet marker"),
                problems.toString());
    }

    @Test
    void aMarkerNamingAMissingFileOrRegionIsCaught() {
        List<String> noFile = problems(page("<!-- snippet: ex/Gone.java#write -->", "x();"), SOURCE);
        assertTrue(noFile.getFirst().startsWith("docs/page.md:5: the marker names ex/Gone.java, which does not exist"),
                noFile.toString());
        List<String> noRegion = problems(page("<!-- snippet: ex/Example.java#read -->", "x();"), SOURCE);
        assertTrue(noRegion.getFirst().startsWith("docs/page.md:5: ex/Example.java has no region \"read\""),
                noRegion.toString());
    }

    @Test
    void aRegionNoPageIncludesIsCaught() {
        assertEquals(List.of("ex/Example.java: region \"write\" is included by no page"),
                problems("# A page without Java\n", SOURCE));
    }

    @Test
    void aRegionLeftOpenIsCaught() {
        List<String> problems = problems(page(MARKER, "x();"), SOURCE.replace("// @end region=\"write\"", ""));
        assertTrue(problems.contains("ex/Example.java: region \"write\" has no @end"), problems.toString());
    }

    @Test
    void javaInsideAnotherLanguagesFenceIsNotABlock() {
        String markdown = "````markdown\n```java\nnot checked();\n```\n````\n";
        assertEquals(List.of("ex/Example.java: region \"write\" is included by no page"), problems(markdown, SOURCE));
    }

    @Test
    void anIndentedBlockIsComparedWithoutItsFencesIndentation() {
        String page = "- a list item:\n\n  " + MARKER + "\n  ```java\n"
                + "  long id = transport.writeBlocks(\"decode-3\", new int[] {4}, new int[] {10});\n\n"
                + "  transport.poll(\"decode-3\");\n  ```\n";
        assertEquals(List.of(), problems(page, SOURCE));
    }
}
