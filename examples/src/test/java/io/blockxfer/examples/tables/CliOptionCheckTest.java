package io.blockxfer.examples.tables;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The option checks read command lines as a reader does, and catch a renamed, a removed and an undocumented option. */
class CliOptionCheckTest {

    private static final Map<String, Set<String>> OPTIONS = Map.of(
            "", Set.of("--help", "--log-level"),
            "bench", Set.of("--backend", "--json", "--csv", "--serve", "--listen"),
            "tck", Set.of("--backend", "--rules"));

    private static final String PAGE = """
            # The tool

            ```
            $ ./blockxfer bench --backend all --json > out.json   # every backend --not-an-option
            hostB$ ./blockxfer bench --serve [--listen HOST:PORT]
                              [--json|--csv]
            ./blockxfer --log-level off tck --rules W1 | grep --count PASS
            ```

            Run `blockxfer tck --backend NAME`, or `bench --serve` on the target; `--json` alone is prose.

            ### `tck`

            The tck command takes `--rules`; every command takes `--help`.
            """;

    @Test
    void commandLinesAreReadWithTheirOptionsAndNothingElse() {
        List<CommandLines.CommandLine> lines = CommandLines.of(PAGE.lines().toList(), OPTIONS.keySet());
        assertEquals(List.of("bench 4 [--backend, --json]", "bench 5 [--serve, --listen, --json, --csv]",
                "tck 7 [--log-level, --rules]", "tck 10 [--backend]", "bench 10 [--serve]"),
                lines.stream().map(l -> l.command() + " " + l.line() + " " + l.options()).toList());
    }

    @Test
    void aPageThatNamesOnlyAcceptedOptionsPasses() {
        assertEquals(List.of(), CliOptionCheck.unknownOptions("p.md", PAGE.lines().toList(), OPTIONS));
    }

    @Test
    void anOptionTheCommandDoesNotAcceptIsNamedWithItsLine() {
        assertEquals(List.of("p.md:10: --rules is not an option of blockxfer bench (bench --serve --rules x)"),
                CliOptionCheck.unknownOptions("p.md", PAGE.replace("`bench --serve`", "`bench --serve --rules x`")
                        .lines().toList(), OPTIONS));
        Map<String, Set<String>> renamed = Map.of("", OPTIONS.get(""), "bench", OPTIONS.get("bench"),
                "tck", Set.of("--backend", "--rule"));
        assertEquals(List.of("p.md:7: --rules is not an option of blockxfer tck (--log-level off tck --rules W1)"),
                CliOptionCheck.unknownOptions("p.md", PAGE.lines().toList(), renamed));
    }

    @Test
    void anOptionTheReferenceDoesNotNameWhereItSpeaksOfItsCommandIsNamed() {
        assertEquals(List.of(), CliOptionCheck.undocumentedOptions("p.md", PAGE.lines().toList(), OPTIONS));
        Map<String, Set<String>> added = Map.of("", OPTIONS.get(""), "bench", OPTIONS.get("bench"),
                "tck", Set.of("--backend", "--rules", "--two-process", "--json"));
        assertEquals(Set.of("p.md: --two-process of blockxfer tck is not named in a command line or a section of"
                        + " that command", "p.md: --json of blockxfer tck is not named in a command line or a section"
                        + " of that command"),
                Set.copyOf(CliOptionCheck.undocumentedOptions("p.md", PAGE.lines().toList(), added)));
    }
}
