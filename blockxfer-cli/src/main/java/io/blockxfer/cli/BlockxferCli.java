package io.blockxfer.cli;

import io.blockxfer.cli.internal.CliLogging;
import io.blockxfer.cli.internal.ErrorHandlers;
import io.blockxfer.cli.internal.LogLevelConverter;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.logging.Level;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * The {@code blockxfer} command and its entry point. Subcommands: {@link BackendsCommand backends},
 * {@link BenchCommand bench} and {@link TckCommand tck}. Every failure is one line on standard
 * error and a non-zero exit status (2 for bad usage, 1 otherwise); never a stack trace.
 *
 * <p>The libraries the tool uses (gRPC, Netty, Vert.x and jetcd under {@code --directory}) log
 * nothing by default and blockxfer's own modules only their warnings and errors
 * ({@link CliLogging}); {@code --log-level LEVEL}, on any command, or the environment variable
 * {@value #LOG_LEVEL_ENV} puts every logger at one level.
 *
 * <p><b>Thread safety:</b> not thread-safe; each {@link #commandLine()} is for one invocation.
 */
@Command(name = "blockxfer", mixinStandardHelpOptions = true, versionProvider = BlockxferCli.Version.class,
        description = "Moves fixed-size memory blocks one-sided between peers: list backends, benchmark, certify.",
        subcommands = {BackendsCommand.class, BenchCommand.class, TckCommand.class,
            CommandLine.HelpCommand.class})
public final class BlockxferCli implements Callable<Integer> {

    /** The environment variable that sets {@code --log-level} when the option is not given. */
    public static final String LOG_LEVEL_ENV = "BLOCKXFER_LOG_LEVEL";

    private static final String LOG_LEVEL = "--log-level";

    @Spec
    private CommandSpec spec;

    @Option(names = LOG_LEVEL, paramLabel = "LEVEL", scope = ScopeType.INHERIT, converter = LogLevelConverter.class,
            defaultValue = "${env:" + LOG_LEVEL_ENV + "}", description = {"Log level of blockxfer and of the"
                + " libraries it uses (gRPC, Netty, etcd's client), all at once: off, error, warn, info, debug,"
                + " trace or all. Default: blockxfer's own warnings and errors, nothing from the libraries."
                + " Environment: " + LOG_LEVEL_ENV + "."})
    private @Nullable Level logLevel;

    /** For picocli. */
    public BlockxferCli() {
    }

    /**
     * Runs the command and exits with its status. Sets up the process's logging first, before a
     * library can log (and SLF4J or the JDK print their own lines): quiet, or at {@code --log-level}
     * once the arguments are parsed.
     */
    public static void main(String[] args) {
        CliLogging logging = CliLogging.install();
        System.exit(commandLine(logging::setLevel).execute(args));
    }

    /**
     * A configured command line; set its output and error writers, then {@code execute(args)}. Its
     * {@code --log-level} changes nothing: the logging of this process stays its host's.
     */
    public static CommandLine commandLine() {
        return commandLine(level -> {
        });
    }

    private static CommandLine commandLine(Consumer<Level> logLevel) {
        CommandLine cli = new CommandLine(new BlockxferCli());
        cli.setCaseInsensitiveEnumValuesAllowed(true);
        cli.setExecutionStrategy(parseResult -> execute(parseResult, logLevel));
        return ErrorHandlers.install(cli);
    }

    /**
     * Sets the log level given, if any, then runs the chosen command; an {@link Error} it throws goes
     * to the error handler like an exception.
     */
    private static int execute(ParseResult parseResult, Consumer<Level> logLevel) {
        Level level = logLevel(parseResult);
        if (level != null) {
            logLevel.accept(level);
        }
        try {
            return new CommandLine.RunLast().execute(parseResult);
        } catch (CommandLine.ExecutionException e) {
            throw e;
        } catch (Error e) {
            List<CommandLine> commands = parseResult.asCommandLineList();
            throw new CommandLine.ExecutionException(commands.getLast(), String.valueOf(e.getMessage()), e);
        }
    }

    /**
     * The {@code --log-level} given (or its environment default), if any: picocli sets this
     * command's field for the option inherited by the subcommands too.
     */
    private static @Nullable Level logLevel(ParseResult parseResult) {
        return parseResult.commandSpec().userObject() instanceof BlockxferCli root ? root.logLevel : null;
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
