package io.blockxfer.cli;

import io.blockxfer.cli.internal.ErrorHandlers;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.Spec;

/**
 * The {@code blockxfer} command and its entry point. Subcommands: {@link BackendsCommand backends},
 * {@link BenchCommand bench} and {@link TckCommand tck}. Every failure is one line on standard
 * error and a non-zero exit status (2 for bad usage, 1 otherwise); never a stack trace.
 *
 * <p><b>Thread safety:</b> not thread-safe; each {@link #commandLine()} is for one invocation.
 */
@Command(name = "blockxfer", mixinStandardHelpOptions = true, versionProvider = BlockxferCli.Version.class,
        description = "Moves fixed-size memory blocks one-sided between peers: list backends, benchmark, certify.",
        subcommands = {BackendsCommand.class, BenchCommand.class, TckCommand.class,
            CommandLine.HelpCommand.class})
public final class BlockxferCli implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    /** For picocli. */
    public BlockxferCli() {
    }

    /** Runs the command and exits with its status. */
    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** A configured command line; set its output and error writers, then {@code execute(args)}. */
    public static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new BlockxferCli());
        cli.setCaseInsensitiveEnumValuesAllowed(true);
        cli.setExecutionStrategy(BlockxferCli::execute);
        return ErrorHandlers.install(cli);
    }

    /** Runs the chosen command; an {@link Error} it throws goes to the error handler like an exception. */
    private static int execute(ParseResult parseResult) {
        try {
            return new CommandLine.RunLast().execute(parseResult);
        } catch (CommandLine.ExecutionException e) {
            throw e;
        } catch (Error e) {
            List<CommandLine> commands = parseResult.asCommandLineList();
            throw new CommandLine.ExecutionException(commands.getLast(), String.valueOf(e.getMessage()), e);
        }
    }

    /** Without a subcommand: the usage, on standard error, and status 2. */
    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        spec.commandLine().usage(err);
        err.flush();
        return 2;
    }

    /**
     * The tool's version, from its jar manifest.
     *
     * <p><b>Thread safety:</b> stateless.
     */
    static final class Version implements IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = BlockxferCli.class.getPackage().getImplementationVersion();
            return new String[] {"blockxfer " + (v == null ? "(development build)" : v) + ", Java "
                    + Runtime.version()};
        }
    }
}
