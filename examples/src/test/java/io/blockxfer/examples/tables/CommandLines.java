package io.blockxfer.examples.tables;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code blockxfer} command lines a markdown page shows, with the long options each names: lines of
 * fenced code blocks that run {@code blockxfer} or {@code ./blockxfer} (continued on following lines that
 * start with {@code [} or {@code --}, or after a trailing backslash), and code spans that start with
 * {@code blockxfer} or with a command's name followed by an option ({@code `bench --serve`}). A shell
 * comment ({@code  # ...}) and what follows a pipe, a redirection or a second command are not part of
 * the line; {@code |} inside an option list ({@code [--json|--csv]}) is.
 */
final class CommandLines {

    /** A command line: where it is, its command ("" for none, as in {@code blockxfer --version}), its options. */
    record CommandLine(int line, String command, Set<String> options, String text) {
    }

    private static final Pattern INVOCATION = Pattern.compile("(?:^|[\\s$(])(?:\\./)?blockxfer(?=\\s|$)(.*)");
    private static final Pattern SPAN = Pattern.compile("`([^`]+)`");
    private static final Pattern OPTION = Pattern.compile("(?<![\\w-])--([a-z][a-z0-9-]*)");
    private static final Pattern WORDS = Pattern.compile("\\s+");
    private static final Pattern END = Pattern.compile("\\s(?:#|\\||>|&&|;|2>)\\s.*$|\\s(?:#|>).*$");

    private CommandLines() {
    }

    /** Every command line of the page, in order; {@code commands} are the command names the tool has. */
    static List<CommandLine> of(List<String> lines, Set<String> commands) {
        List<CommandLine> found = new ArrayList<>();
        boolean fenced = false;
        CommandLine open = null;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.strip().startsWith("```")) {
                fenced = !fenced;
                open = null;
                continue;
            }
            if (fenced) {
                String continued = line.strip();
                if (open != null && (continued.startsWith("[") || continued.startsWith("--")
                        || open.text().endsWith("\\"))) {
                    CommandLine more = parse(open.line(), open.text() + " " + cut(continued), commands, false);
                    found.set(found.size() - 1, more);
                    open = more;
                    continue;
                }
                open = null;
                Matcher m = INVOCATION.matcher(cut(line));
                if (m.find()) {
                    open = parse(i + 1, m.group(1), commands, false);
                    found.add(open);
                }
                continue;
            }
            Matcher span = SPAN.matcher(line);
            while (span.find()) {
                String code = span.group(1).strip();
                if (code.matches("(?:\\./)?blockxfer(\\s.*)?")) {
                    found.add(parse(i + 1, code.replaceFirst("^(?:\\./)?blockxfer", ""), commands, false));
                } else if (code.matches("[a-z]+\\s+--.*") && commands.contains(WORDS.split(code, -1)[0])) {
                    found.add(parse(i + 1, code, commands, true));
                }
            }
        }
        return List.copyOf(found);
    }

    private static String cut(String line) {
        return END.matcher(line).replaceFirst("");
    }

    private static CommandLine parse(int line, String rest, Set<String> commands, boolean startsWithCommand) {
        String text = cut(rest).strip();
        String command = "";
        for (String word : WORDS.split(text, -1)) {
            if (commands.contains(word)) {
                command = word;
                break;
            }
            if (startsWithCommand) {
                break;
            }
        }
        Set<String> options = new LinkedHashSet<>();
        Matcher m = OPTION.matcher(text);
        while (m.find()) {
            options.add("--" + m.group(1));
        }
        return new CommandLine(line, command, options, text);
    }
}
