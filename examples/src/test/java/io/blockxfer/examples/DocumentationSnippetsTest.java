package io.blockxfer.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every Java block of the README, the guides under {@code docs/} and the modules' READMEs is a
 * region of a compiled source, word for word (see {@link SnippetCheck}), and every region of the
 * examples is shown by some page: a changed API breaks the build, not the reader.
 */
class DocumentationSnippetsTest {

    /** The repository root: the tests run in the module's directory. */
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    private static final Path EXAMPLES = Path.of("examples/src/main/java");

    @Test
    void everyJavaBlockOfTheDocumentationIsARegionOfACompiledSource() throws IOException {
        List<Path> pages = pages();
        assertTrue(pages.contains(Path.of("README.md")) && pages.contains(Path.of("docs/getting-started.md")),
                "the pages were found under " + ROOT + ": " + pages);
        SnippetCheck check = new SnippetCheck(DocumentationSnippetsTest::source);
        for (Path page : pages) {
            check.page(page.toString(), Files.readString(ROOT.resolve(page), StandardCharsets.UTF_8));
        }
        check.everyRegionIncluded(exampleSources());
        assertEquals("", String.join("\n", check.problems()),
                "the documentation's Java and the compiled examples differ");
    }

    /** README.md, docs/**.md and each top-level directory's README.md (not through links). */
    private static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>();
        pages.add(Path.of("README.md"));
        try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).map(ROOT::relativize).sorted().forEach(pages::add);
        }
        try (Stream<Path> dirs = Files.list(ROOT)) {
            dirs.filter(d -> Files.isDirectory(d, java.nio.file.LinkOption.NOFOLLOW_LINKS))
                    .filter(d -> !d.getFileName().toString().startsWith("."))
                    .map(d -> d.resolve("README.md"))
                    .filter(Files::isRegularFile)
                    .map(ROOT::relativize).sorted().forEach(pages::add);
        }
        return pages;
    }

    private static List<String> exampleSources() throws IOException {
        try (Stream<Path> files = Files.walk(ROOT.resolve(EXAMPLES))) {
            return files.filter(p -> p.toString().endsWith(".java")).map(p -> ROOT.relativize(p).toString())
                    .sorted().toList();
        }
    }

    private static Optional<String> source(String path) {
        Path file = ROOT.resolve(path).normalize();
        if (!file.startsWith(ROOT) || !Files.isRegularFile(file)) {
            return Optional.empty();
        }
        try {
            return Optional.of(Files.readString(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
