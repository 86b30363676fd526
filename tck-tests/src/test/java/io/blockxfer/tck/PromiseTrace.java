package io.blockxfer.tck;

import io.blockxfer.tck.directory.DirectoryRules;
import io.blockxfer.tck.holds.HoldRules;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The trace of {@code docs/promises.md}, parsed: each promise is a row {@code | fragment | source |
 * rules |} of a table under a {@code ## } section; the rows of the section {@value #GAPS} are the
 * promises no rule checks yet, whose rules column is {@code - : reason}. Also the rule catalogues
 * the trace names ids of: {@link ConformanceRules}, {@link DirectoryRules} and {@link HoldRules}.
 *
 * <p>Immutable once parsed, so safe to share between threads.
 */
final class PromiseTrace {

    /** The section whose rows are promises without a rule, each with the reason. */
    static final String GAPS = "Promises no rule checks yet";

    private static final Pattern ROW = Pattern.compile("^\\|(.*)\\|(.*)\\|(.*)\\|\\s*$");

    /** One promise: where it is written, its words, the rules that check it or the reason none does. */
    record Promise(int line, String section, String fragment, String source, List<String> rules, String gap) {

        boolean isGap() {
            return !gap.isEmpty();
        }

        @Override
        public String toString() {
            String f = fragment.length() > 70 ? fragment.substring(0, 70) + "..." : fragment;
            return "promises.md:" + line + " \"" + f + "\" (" + source + ")";
        }
    }

    private final List<Promise> promises;

    private PromiseTrace(List<Promise> promises) {
        this.promises = List.copyOf(promises);
    }

    /** Parses the trace's markdown; a table row that is not {@code | promise | in | rules |} is an error. */
    static PromiseTrace parse(String markdown) {
        List<Promise> promises = new ArrayList<>();
        String section = "";
        String[] lines = markdown.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String l = lines[i];
            if (l.startsWith("## ")) {
                section = l.substring(3).strip();
                continue;
            }
            Matcher m = ROW.matcher(l);
            if (!m.matches() || section.isEmpty()) {
                continue;
            }
            String fragment = m.group(1).strip();
            String source = m.group(2).strip().replace("`", "");
            String rules = m.group(3).strip();
            if (fragment.equals("promise") || fragment.startsWith("---")) {
                continue;
            }
            if (section.equals(GAPS)) {
                if (!rules.startsWith("- :")) {
                    throw new IllegalArgumentException("promises.md:" + (i + 1) + ": a row of \"" + GAPS
                            + "\" says \"- : why no rule checks it\", not: " + rules);
                }
                promises.add(new Promise(i + 1, section, fragment, source, List.of(), rules.substring(3).strip()));
            } else {
                List<String> ids = rules.isEmpty() || rules.equals("-") ? List.of()
                        : Arrays.stream(rules.split(",")).map(String::strip).toList();
                promises.add(new Promise(i + 1, section, fragment, source, ids, ""));
            }
        }
        return new PromiseTrace(promises);
    }

    List<Promise> promises() {
        return promises;
    }

    /** Every rule id of the three catalogues, with the broken variants its entry says prove it. */
    static Map<String, String> catalogue() {
        Map<String, String> all = new LinkedHashMap<>();
        for (ConformanceRules r : ConformanceRules.values()) {
            all.put(r.name(), r.provenBy());
        }
        for (DirectoryRules r : DirectoryRules.values()) {
            all.put(r.name(), r.provenBy());
        }
        for (HoldRules r : HoldRules.values()) {
            all.put(r.name(), r.provenBy());
        }
        return all;
    }

    /**
     * Whether {@code fragment} is in {@code source}'s text, word for word: both with every run of
     * white space as one space, and for Java sources without the {@code *} that starts a javadoc line.
     */
    static boolean quotes(String source, String sourceText, String fragment) {
        String text = sourceText;
        if (source.endsWith(".java")) {
            text = text.replaceAll("(?m)^\\s*\\*( |$)", "");
        }
        return collapse(text).contains(collapse(fragment));
    }

    /** Why {@code p} is not a well-formed promise of a rule, or empty where it is. */
    static Optional<String> defect(Promise p, Map<String, String> catalogue) {
        if (p.fragment().split("\\s+").length < 6) {
            return Optional.of(p + ": quote at least six words of the promise");
        }
        if (p.isGap()) {
            return Optional.empty();
        }
        if (p.rules().isEmpty()) {
            return Optional.of(p + ": names no rule; a promise no rule checks goes under \"" + GAPS + "\" with why");
        }
        List<String> unknown = p.rules().stream().filter(id -> !catalogue.containsKey(id)).toList();
        if (!unknown.isEmpty()) {
            return Optional.of(p + ": names rules no catalogue has: " + unknown);
        }
        return Optional.empty();
    }

    private static String collapse(String s) {
        return s.replaceAll("\\s+", " ").strip();
    }
}
