package io.blockxfer.examples.tables;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.cli.BlockxferCli;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The options the documentation shows are the options the {@code blockxfer} command accepts, read from
 * the command's own parser (picocli's model of {@link BlockxferCli#commandLine()}): an option renamed or
 * removed fails the first test at every page and line that still names it, and an option added fails the
 * second until blockxfer-cli/README.md names it ({@link CliOptionCheckTest} shows both caught).
 */
class CliOptionsTest {

    private static final String REFERENCE = "blockxfer-cli/README.md";

    @Test
    @DisplayName("every option a blockxfer command line of the documentation names is one its command accepts")
    void documentedOptionsExist() {
        Map<String, Set<String>> options = optionsByCommand();
        List<String> unknown = new ArrayList<>();
        Path root = RepoFiles.root();
        for (Path page : RepoFiles.find(".md")) {
            String relative = root.relativize(page).toString();
            unknown.addAll(CliOptionCheck.unknownOptions(relative, RepoFiles.lines(relative), options));
        }
        assertTrue(unknown.isEmpty(), String.join("\n", unknown));
    }

    @Test
    @DisplayName("blockxfer-cli/README.md names every option of every command where it speaks of that command")
    void everyOptionIsDocumented() {
        List<String> missing = CliOptionCheck.undocumentedOptions(REFERENCE, RepoFiles.lines(REFERENCE),
                optionsByCommand());
        assertTrue(missing.isEmpty(), String.join("\n", missing));
    }

    @Test
    @DisplayName("the parser's model has the commands and options the checks rely on")
    void theModelIsRead() {
        Map<String, Set<String>> options = optionsByCommand();
        assertTrue(options.keySet().containsAll(Set.of("", "backends", "bench", "tck")), options.keySet().toString());
        assertTrue(options.get("bench").containsAll(Set.of("--backend", "--serve", "--json", "--etcd-cacert")),
                options.get("bench").toString());
        assertTrue(options.get("").contains("--log-level"), options.get("").toString());
    }

    /** The long options of the tool ("") and of each command but help, hidden ones left out. */
    static Map<String, Set<String>> optionsByCommand() {
        CommandLine cli = BlockxferCli.commandLine();
        Map<String, Set<String>> out = new LinkedHashMap<>();
        out.put("", longNames(cli));
        cli.getSubcommands().forEach((name, sub) -> {
            if (!name.equals("help")) {
                Set<String> own = new TreeSet<>(longNames(sub));
                own.removeAll(out.get(""));
                out.put(name, own);
            }
        });
        return out;
    }

    private static Set<String> longNames(CommandLine command) {
        Set<String> names = new TreeSet<>();
        for (OptionSpec option : command.getCommandSpec().options()) {
            if (!option.hidden()) {
                for (String name : option.names()) {
                    if (name.startsWith("--")) {
                        names.add(name);
                    }
                }
            }
        }
        return names;
    }
}
