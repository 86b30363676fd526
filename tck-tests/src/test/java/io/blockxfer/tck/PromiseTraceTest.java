package io.blockxfer.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The trace from promise to rule to broken variant, {@code docs/promises.md}: every promise quotes
 * its page or javadoc word for word (so a promise reworded there breaks the trace here), names at
 * least one rule, and only rules that exist; every rule of the three catalogues is named by a
 * promise and names the broken variants that prove it (that each variant exists and fails its rule
 * is what {@code BrokenBackendsAreCaughtTest}, {@code BrokenDirectoriesAreCaughtTest} and
 * {@code BrokenHoldsAreCaughtTest} check). A promise that no rule checks yet is listed under
 * {@value PromiseTrace#GAPS} with the reason, and reported here as skipped with it, so every gap is
 * visible in each build's report, as a suite's known violations are.
 */
class PromiseTraceTest {

    private static final Path ROOT = Path.of("..");
    private static final Path TRACE = ROOT.resolve("docs/promises.md");

    private static PromiseTrace trace() throws IOException {
        return PromiseTrace.parse(Files.readString(TRACE, StandardCharsets.UTF_8));
    }

    @TestFactory
    @DisplayName("each promise quotes its source word for word and names rules that exist")
    Stream<DynamicTest> eachPromise() throws IOException {
        Map<String, String> catalogue = PromiseTrace.catalogue();
        return trace().promises().stream().map(p -> dynamicTest(p.toString(), () -> {
            Path source = ROOT.resolve(p.source());
            assertTrue(Files.isRegularFile(source), p + ": no such file " + p.source());
            assertTrue(PromiseTrace.quotes(p.source(), Files.readString(source, StandardCharsets.UTF_8), p.fragment()),
                    p + ": " + p.source() + " does not say this (reworded or moved?)");
            Optional<String> defect = PromiseTrace.defect(p, catalogue);
            assertEquals(Optional.empty(), defect);
            Assumptions.assumeFalse(p.isGap(), () -> "no rule checks it yet: " + p.gap());
        }));
    }

    @Test
    @DisplayName("every rule of the three catalogues is named by a promise")
    void everyRuleIsNamedByAPromise() throws IOException {
        Set<String> named = trace().promises().stream().flatMap(p -> p.rules().stream())
                .collect(Collectors.toSet());
        Set<String> unnamed = new TreeSet<>(PromiseTrace.catalogue().keySet());
        unnamed.removeAll(named);
        assertEquals(Set.of(), unnamed, "rules that no promise of docs/promises.md names");
    }

    @Test
    @DisplayName("every rule names the broken variants that prove it can fail")
    void everyRuleNamesItsBrokenVariants() {
        List<String> without = PromiseTrace.catalogue().entrySet().stream()
                .filter(e -> e.getValue().isBlank()).map(Map.Entry::getKey).toList();
        assertEquals(List.of(), without, "rules whose catalogue entry names no broken variant");
    }

    @Test
    @DisplayName("the trace's checks fail on a reworded promise, an unknown rule, a promise without a rule and a"
            + " gap without a reason")
    void theChecksCanFail() {
        Map<String, String> catalogue = PromiseTrace.catalogue();
        PromiseTrace t = PromiseTrace.parse("""
                ## Transfers
                | promise | in | rules |
                |---|---|---|
                | every id a submit returns ends exactly once | docs/x.md | W1 |
                | every id a submit returns ends exactly once | docs/x.md | Q99 |
                | every id a submit returns ends exactly once | docs/x.md | - |
                ## Promises no rule checks yet
                | promise | in | rules |
                |---|---|---|
                | a wait on one peer ends only for its transfers | docs/y.md | - : nothing holds another peer's |
                """);
        List<PromiseTrace.Promise> ps = t.promises();
        assertEquals(4, ps.size());
        assertTrue(PromiseTrace.quotes("docs/x.md", "so every id a submit\n returns ends exactly once.", ps.get(0).fragment()));
        assertTrue(!PromiseTrace.quotes("docs/x.md", "every id a submit returns ends at most once", ps.get(0).fragment()),
                "a reworded promise no longer quotes its source");
        assertTrue(PromiseTrace.quotes("A.java", "/**\n * every id a submit\n * returns ends exactly once\n */",
                ps.get(0).fragment()), "javadoc's leading stars are not words");
        assertEquals(Optional.empty(), PromiseTrace.defect(ps.get(0), catalogue));
        assertTrue(PromiseTrace.defect(ps.get(1), catalogue).orElseThrow().contains("Q99"));
        assertTrue(PromiseTrace.defect(ps.get(2), catalogue).orElseThrow().contains("names no rule"));
        assertTrue(ps.get(3).isGap());
        assertThrows(IllegalArgumentException.class, () -> PromiseTrace.parse("""
                ## Promises no rule checks yet
                | a wait on one peer ends only for its transfers | docs/y.md | W1 |
                """), "a gap says why no rule checks it");
    }
}
