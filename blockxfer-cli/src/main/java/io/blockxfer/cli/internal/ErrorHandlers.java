package io.blockxfer.cli.internal;

import io.blockxfer.transport.TransportException;
import java.io.PrintWriter;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * Turns every failure into one short line on standard error and a non-zero exit code: bad flags and
 * values exit with 2, failures while running with 1 (or a {@link CliException}'s own code). The
 * long form of a {@link CliException} ({@link CliException#detail()}: every provider's cause,
 * library paths) follows on further lines only when the command was given {@code --verbose}. A
 * stack trace is printed only when the environment variable {@code BLOCKXFER_DEBUG} is set.
 *
 * <p><b>Thread safety:</b> stateless.
 */
public final class ErrorHandlers implements IParameterExceptionHandler, IExecutionExceptionHandler {

    private ErrorHandlers() {
    }

    /** Installs both handlers on {@code cli} (they apply to its subcommands too). */
    public static CommandLine install(CommandLine cli) {
        ErrorHandlers handlers = new ErrorHandlers();
        cli.setParameterExceptionHandler(handlers);
        cli.setExecutionExceptionHandler(handlers);
        return cli;
    }

    @Override
    public int handleParseException(ParameterException ex, String[] args) {
        CommandLine cl = ex.getCommandLine();
        String name = cl.getCommandSpec().qualifiedName();
        cl.getErr().println(name + ": " + oneLine(ex.getMessage()) + " (see '" + name + " --help')");
        cl.getErr().flush();
        return CliException.USAGE;
    }

    @Override
    public int handleExecutionException(Exception ex, CommandLine cl, ParseResult parseResult) {
        PrintWriter err = cl.getErr();
        Throwable failure = ex instanceof CommandLine.ExecutionException && ex.getCause() != null ? ex.getCause() : ex;
        err.println(cl.getCommandSpec().qualifiedName() + ": " + describe(failure));
        if (failure instanceof CliException c && c.detail().isPresent() && verbose(parseResult)) {
            c.detail().get().lines().forEach(line -> err.println("  " + line));
        }
        if (System.getenv("BLOCKXFER_DEBUG") != null) {
            failure.printStackTrace(err);
        }
        err.flush();
        return ex instanceof CliException c ? c.exitCode() : CliException.FAILURE;
    }

    /** Whether any command of the invocation was given {@code --verbose}. */
    static boolean verbose(ParseResult parseResult) {
        for (ParseResult r = parseResult; r != null; r = r.subcommand()) {
            if (r.hasMatchedOption("--verbose")) {
                return true;
            }
        }
        return false;
    }

    /** The one-line message for {@code e}: the message of expected failures, the type of others. */
    public static String describe(Throwable e) {
        if (e instanceof CliException || e instanceof TransportException || e instanceof IllegalArgumentException) {
            return oneLine(e.getMessage());
        }
        if (e instanceof OutOfMemoryError) {
            return "out of memory: " + oneLine(e.getMessage()) + " (try smaller sizes, or more -Xmx in BLOCKXFER_JAVA_OPTS)";
        }
        String message = e.getMessage() == null ? "" : ": " + oneLine(e.getMessage());
        return "unexpected " + e.getClass().getSimpleName() + message + " (set BLOCKXFER_DEBUG=1 for the stack trace)";
    }

    /** {@code text} on one line: line breaks become spaces. */
    public static String oneLine(@Nullable String text) {
        return text == null ? "" : text.strip().replaceAll("\\s*\\R\\s*", " ");
    }
}
