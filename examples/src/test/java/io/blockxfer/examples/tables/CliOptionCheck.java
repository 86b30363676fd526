package io.blockxfer.examples.tables;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Checks a page's {@code blockxfer} command lines against the options the tool accepts, and a reference
 * page against every option the tool has. Options are long names ({@code --json}), by command; the
 * command "" stands for the tool itself ({@code blockxfer --version}), whose options every command takes.
 */
final class CliOptionCheck {

    private CliOptionCheck() {
    }

    /** Each option a command line of the page names that its command does not accept, as {@code page:line: ...}. */
    static List<String> unknownOptions(String page, List<String> lines, Map<String, Set<String>> optionsByCommand) {
        List<String> out = new ArrayList<>();
        for (CommandLines.CommandLine cl : CommandLines.of(lines, optionsByCommand.keySet())) {
            Set<String> accepted = new LinkedHashSet<>(optionsByCommand.getOrDefault("", Set.of()));
            accepted.addAll(optionsByCommand.getOrDefault(cl.command(), Set.of()));
            for (String option : cl.options()) {
                if (!accepted.contains(option)) {
                    out.add(page + ":" + cl.line() + ": " + option + " is not an option of blockxfer"
                            + (cl.command().isEmpty() ? "" : " " + cl.command()) + " (" + cl.text() + ")");
                }
            }
        }
        return out;
    }

    /**
     * Each option of a command that the reference page does not name where it speaks of that command: in a
     * command line of the command, or in a section whose heading names the command in a code span
     * ({@code ### `bench`}, {@code ### Two hosts: `bench --serve` ...}) with its subsections. The tool's own
     * options ("") count as named anywhere on the page.
     */
    static List<String> undocumentedOptions(String page, List<String> lines,
            Map<String, Set<String>> optionsByCommand) {
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, Set<String>> command : optionsByCommand.entrySet()) {
            String named = command.getKey().isEmpty() ? String.join("\n", lines)
                    : String.join("\n", sections(lines, command.getKey()));
            Set<String> inLines = new LinkedHashSet<>();
            CommandLines.of(lines, optionsByCommand.keySet()).stream()
                    .filter(cl -> cl.command().equals(command.getKey())).forEach(cl -> inLines.addAll(cl.options()));
            for (String option : command.getValue()) {
                if (!inLines.contains(option) && !mentions(named, option)) {
                    out.add(page + ": " + option + " of blockxfer"
                            + (command.getKey().isEmpty() ? "" : " " + command.getKey())
                            + " is not named in a command line or a section of that command");
                }
            }
        }
        return out;
    }

    private static boolean mentions(String text, String option) {
        return Pattern.compile("(?<![\\w-])" + Pattern.quote(option) + "(?![\\w-])").matcher(text).find();
    }

    /** The lines of the sections whose heading names the command in a code span, each with its subsections. */
    private static List<String> sections(List<String> lines, String command) {
        Pattern heading = Pattern.compile("^(#+) .*`" + Pattern.quote(command) + "[` ].*");
        List<String> out = new ArrayList<>();
        int level = 0;
        for (String line : lines) {
            int depth = line.startsWith("#") ? line.indexOf(' ') : 0;
            if (depth > 0 && line.substring(0, depth).chars().allMatch(c -> c == '#')) {
                if (heading.matcher(line).matches()) {
                    level = depth;
                } else if (level > 0 && depth <= level) {
                    level = 0;
                }
            }
            if (level > 0) {
                out.add(line);
            }
        }
        return out;
    }
}
