package io.blockxfer.examples;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks that the Java a page shows is the code the build compiles: every {@code ```java} block
 * of a page sits right below a marker {@code <!-- snippet: PATH#REGION -->} naming a region of a
 * Java source ({@code // @start region="REGION"} ... {@code // @end region="REGION"}, javadoc's
 * snippet markup), and equals that region line for line once the region's common indentation is
 * removed (trailing blanks ignored). The sources are read through a function, so that the check
 * runs on the repository as well as on a page and a source held in memory.
 *
 * <p>Not thread-safe: one check per instance.
 */
final class SnippetCheck {

    private static final Pattern MARKER = Pattern.compile("^<!--\\s*snippet:\\s*(\\S+?)#(\\S+)\\s*-->$");
    private static final Pattern START = Pattern.compile("^//\\s*@start\\s+region\\s*=\\s*\"?([\\w.-]+)\"?\\s*$");
    private static final Pattern END = Pattern.compile("^//\\s*@end(?:\\s+region\\s*=\\s*\"?([\\w.-]+)\"?)?\\s*$");

    private final Function<String, Optional<String>> sources;
    private final List<String> problems = new ArrayList<>();
    private final Set<String> included = new HashSet<>();
    private final Map<String, Map<String, List<String>>> regionsByFile = new LinkedHashMap<>();

    /**
     * @param sources the text of a source by its path relative to the repository root, empty when
     *     there is no such file
     */
    SnippetCheck(Function<String, Optional<String>> sources) {
        this.sources = sources;
    }

    /** Checks every Java block of {@code page} (named {@code path} in messages). */
    SnippetCheck page(String path, String page) {
        String[] lines = page.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String fence = lines[i].strip();
            if (!fence.startsWith("```")) {
                continue;
            }
            int indent = lines[i].indexOf('`');
            int ticks = fence.length() - fence.replaceFirst("^`+", "").length();
            int close = i + 1;
            while (close < lines.length && !closes(lines[close].strip(), ticks)) {
                close++;
            }
            if (fence.equals("```java")) {
                List<String> block = new ArrayList<>();
                for (int j = i + 1; j < close; j++) {
                    block.add(unindent(lines[j], indent).stripTrailing());
                }
                checkBlock(path, i + 1, i > 0 ? lines[i - 1].strip() : "", block);
            }
            i = close; // a fence of another language may hold "```java" as its text
        }
        return this;
    }

    private void checkBlock(String page, int fenceLine, String above, List<String> block) {
        String at = page + ":" + fenceLine + ": ";
        Matcher marker = MARKER.matcher(above);
        if (!marker.matches()) {
            problems.add(at + "a ```java block without a snippet marker on the line above "
                    + "(<!-- snippet: examples/src/main/java/io/blockxfer/examples/File.java#region -->)");
            return;
        }
        String file = marker.group(1);
        String region = marker.group(2);
        included.add(file + "#" + region);
        Map<String, List<String>> regions = regions(file);
        if (regions == null) {
            problems.add(at + "the marker names " + file + ", which does not exist");
            return;
        }
        List<String> source = regions.get(region);
        if (source == null) {
            problems.add(at + file + " has no region \"" + region + "\" (its regions: " + regions.keySet() + ")");
            return;
        }
        int n = Math.max(block.size(), source.size());
        for (int k = 0; k < n; k++) {
            String shown = k < block.size() ? block.get(k) : null;
            String compiled = k < source.size() ? source.get(k) : null;
            if (shown == null || !shown.equals(compiled)) {
                problems.add(page + ":" + (fenceLine + 1 + k) + ": the block differs from " + file + "#" + region
                        + " at its line " + (k + 1) + ":\n    page:   " + describe(shown)
                        + "\n    source: " + describe(compiled));
                return;
            }
        }
    }

    private static boolean closes(String line, int ticks) {
        return line.length() >= ticks && line.chars().allMatch(c -> c == '`');
    }

    private static String describe(String line) {
        return line == null ? "(no such line)" : line;
    }

    private Map<String, List<String>> regions(String file) {
        if (regionsByFile.containsKey(file)) {
            return regionsByFile.get(file);
        }
        Map<String, List<String>> regions = file.endsWith(".java") && !file.startsWith("/") && !file.contains("..")
                ? sources.apply(file).map(text -> parseRegions(file, text)).orElse(null)
                : null;
        regionsByFile.put(file, regions);
        return regions;
    }

    /**
     * The regions of one source by name, each without its markup lines and its common indentation;
     * a region opened twice, or not closed, is a problem.
     */
    private Map<String, List<String>> parseRegions(String file, String text) {
        Map<String, List<String>> done = new LinkedHashMap<>();
        Map<String, List<String>> open = new LinkedHashMap<>();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].stripTrailing();
            Matcher start = START.matcher(line.strip());
            Matcher end = END.matcher(line.strip());
            if (start.matches()) {
                String name = start.group(1);
                if (done.containsKey(name) || open.containsKey(name)) {
                    problems.add(file + ":" + (i + 1) + ": region \"" + name + "\" is opened a second time");
                }
                open.put(name, new ArrayList<>());
            } else if (end.matches()) {
                String name = end.group(1) != null ? end.group(1)
                        : open.isEmpty() ? null : open.keySet().stream().reduce((a, b) -> b).orElseThrow();
                List<String> body = name == null ? null : open.remove(name);
                if (body == null) {
                    problems.add(file + ":" + (i + 1) + ": @end of a region that is not open");
                } else {
                    done.put(name, dedent(body));
                }
            } else {
                for (List<String> body : open.values()) {
                    body.add(line);
                }
            }
        }
        for (String name : open.keySet()) {
            problems.add(file + ": region \"" + name + "\" has no @end");
        }
        return done;
    }

    /** Reports, for each source given, the regions no page includes. */
    SnippetCheck everyRegionIncluded(List<String> files) {
        for (String file : files) {
            Map<String, List<String>> regions = regions(file);
            if (regions == null) {
                problems.add(file + ": no such source");
                continue;
            }
            for (String name : regions.keySet()) {
                if (!included.contains(file + "#" + name)) {
                    problems.add(file + ": region \"" + name + "\" is included by no page");
                }
            }
        }
        return this;
    }

    /** Every problem found so far, each naming its file and line. */
    List<String> problems() {
        return List.copyOf(problems);
    }

    private static String unindent(String line, int indent) {
        int k = 0;
        while (k < indent && k < line.length() && line.charAt(k) == ' ') {
            k++;
        }
        return line.substring(k);
    }

    private static List<String> dedent(List<String> body) {
        int common = Integer.MAX_VALUE;
        for (String line : body) {
            if (!line.isBlank()) {
                common = Math.min(common, line.length() - line.stripLeading().length());
            }
        }
        List<String> out = new ArrayList<>(body.size());
        for (String line : body) {
            out.add(line.isBlank() ? "" : line.substring(common));
        }
        return out;
    }
}
