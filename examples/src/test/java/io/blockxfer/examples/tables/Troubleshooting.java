package io.blockxfer.examples.tables;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks a troubleshooting page: each entry is a {@code ### } heading that is one code span, a fragment of
 * an error message ({@code ### `is not available`}), found verbatim inside one string literal of the
 * sources; and each entry has a {@code **Cause.**} paragraph and a {@code **Fix.**} paragraph. A fragment
 * spread over a concatenation ({@code "peer " + id + " refused"}) is not found: quote the part inside one
 * literal, which is what a reader's search for the message finds.
 */
final class Troubleshooting {

    private static final Pattern ENTRY = Pattern.compile("### `([^`]+)`");

    private Troubleshooting() {
    }

    /** What is wrong with the page, one message per problem as {@code page:line: ...}; empty when nothing. */
    static List<String> problems(String page, List<String> lines, List<JavaStringLiterals.Literal> literals) {
        List<String> out = new ArrayList<>();
        int entries = 0;
        boolean fenced = false;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.strip().startsWith("```")) {
                fenced = !fenced;
            }
            if (fenced || !line.startsWith("### ")) {
                continue;
            }
            entries++;
            String where = page + ":" + (i + 1) + ": ";
            Matcher m = ENTRY.matcher(line.strip());
            if (!m.matches()) {
                out.add(where + "an entry's heading is one code span, a fragment of the message: " + line);
                continue;
            }
            String fragment = m.group(1);
            if (literals.stream().noneMatch(l -> l.value().contains(fragment))) {
                out.add(where + "`" + fragment + "` is in no string literal of the sources");
            }
            List<String> body = body(lines, i + 1);
            if (body.stream().noneMatch(l -> l.strip().startsWith("**Cause.**"))) {
                out.add(where + "`" + fragment + "` has no **Cause.** paragraph");
            }
            if (body.stream().noneMatch(l -> l.strip().startsWith("**Fix.**"))) {
                out.add(where + "`" + fragment + "` has no **Fix.** paragraph");
            }
        }
        if (entries == 0) {
            out.add(page + ": no entries (### `message fragment` headings)");
        }
        return out;
    }

    /** The string literals of every module's main sources ({@code MODULE/src/main/java}), but the examples'. */
    static List<JavaStringLiterals.Literal> literalsOfMainSources() {
        Path root = RepoFiles.root();
        List<JavaStringLiterals.Literal> out = new ArrayList<>();
        for (Path file : RepoFiles.find(".java")) {
            String relative = root.relativize(file).toString();
            if (relative.contains("/src/main/java/") && !relative.startsWith("examples/")) {
                try {
                    out.addAll(JavaStringLiterals.of(Files.readString(file)));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
        return out;
    }

    /** The lines of an entry: up to the next heading outside a code block. */
    private static List<String> body(List<String> lines, int from) {
        List<String> body = new ArrayList<>();
        boolean fenced = false;
        for (int i = from; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.strip().startsWith("```")) {
                fenced = !fenced;
            }
            if (!fenced && line.startsWith("#")) {
                break;
            }
            body.add(line);
        }
        return body;
    }
}
