package io.blockxfer.examples.tables;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/** The troubleshooting check, on a sample page: what passes, and each problem it names. */
class TroubleshootingCheckTest {

    @Test
    void stringLiteralsAreReadAsTheCompilerReadsThem() {
        String source = """
                class A { // "in a comment"
                    /* "in a block
                       comment" */
                    char q = '"';
                    String s = "say \\"hi\\"\\n" + id + "peer '";
                    String u = "caf\\u00e9 \\\\u0041";
                    String t = \"""
                        a text block, \\
                        joined
                        \""";
                }
                """;
        assertEquals(List.of(new JavaStringLiterals.Literal(5, "say \"hi\"\n"), new JavaStringLiterals.Literal(5,
                "peer '"), new JavaStringLiterals.Literal(6, "caf\u00e9 \\u0041"),
                new JavaStringLiterals.Literal(7, "a text block, joined\n")), JavaStringLiterals.of(source));
        assertThrows(IllegalArgumentException.class, () -> JavaStringLiterals.of("String s = \"open"));
    }

    @Test
    void aPageWhoseEntriesAreMessagesOfTheCodePasses() throws IOException {
        assertEquals(List.of(), Troubleshooting.problems("t.md", sample(), Troubleshooting.literalsOfMainSources()));
    }

    @Test
    void aMessageTheCodeNoLongerHasIsNamedWithItsLine() throws IOException {
        List<JavaStringLiterals.Literal> code = List.of(new JavaStringLiterals.Literal(1, "unknown backend '"),
                new JavaStringLiterals.Literal(2, " is not available in this process"));
        assertEquals(List.of("t.md:16: `is not available in this JVM` is in no string literal of the sources"),
                Troubleshooting.problems("t.md", sample(), code));
    }

    @Test
    void anEntryWithoutCauseOrFixOrWithAnotherHeadingIsNamed() throws IOException {
        List<String> page = sample().stream().map(l -> l.replace("**Fix.** Use", "Use")
                .replace("### `unknown backend '`", "### Unknown backend")).toList();
        List<JavaStringLiterals.Literal> code = List.of(new JavaStringLiterals.Literal(1, "x is not available in this JVM"));
        assertEquals(List.of("t.md:5: an entry's heading is one code span, a fragment of the message: ### Unknown"
                + " backend", "t.md:16: `is not available in this JVM` has no **Fix.** paragraph"),
                Troubleshooting.problems("t.md", page, code));
        assertEquals(List.of("t.md: no entries (### `message fragment` headings)"),
                Troubleshooting.problems("t.md", List.of("# Troubleshooting"), code));
    }

    private static List<String> sample() throws IOException {
        try (InputStream in = Objects.requireNonNull(TroubleshootingCheckTest.class
                .getResourceAsStream("troubleshooting-sample.md"), "troubleshooting-sample.md")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        }
    }
}
