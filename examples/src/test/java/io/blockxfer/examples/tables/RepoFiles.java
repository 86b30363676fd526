package io.blockxfer.examples.tables;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** The repository's files, found from the directory the tests run in (the examples module's or the root). */
final class RepoFiles {

    private RepoFiles() {
    }

    /** The repository's root: the nearest directory at or above the working directory with examples/pom.xml. */
    static Path root() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("examples/pom.xml")) && Files.isRegularFile(dir.resolve("pom.xml"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no repository root (a directory with examples/pom.xml) above "
                + Path.of("").toAbsolutePath());
    }

    /** The lines of a file of the repository, by its path from the root; fails naming the file if it is missing. */
    static List<String> lines(String relative) {
        Path file = root().resolve(relative);
        if (!Files.isRegularFile(file)) {
            throw new AssertionError(relative + " is missing");
        }
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The files under the root whose name ends with {@code suffix}, outside build output, natives and hidden folders. */
    static List<Path> find(String suffix) {
        Path root = root();
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(p -> p.getFileName().toString().endsWith(suffix) && Files.isRegularFile(p))
                    .filter(p -> Stream.of(root.relativize(p).toString().split("/", -1)).noneMatch(RepoFiles::skipped))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean skipped(String folder) {
        return folder.equals("target") || folder.equals("natives") || folder.equals("node_modules")
                || folder.startsWith(".");
    }
}
