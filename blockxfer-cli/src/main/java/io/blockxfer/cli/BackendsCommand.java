package io.blockxfer.cli;

import io.blockxfer.cli.internal.ProviderReport;
import io.blockxfer.cli.internal.ProviderSource;
import io.blockxfer.transport.ProviderInfo;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code blockxfer backends}: every provider discovery finds, available or not with the cause, its
 * priority, capabilities and native library version; {@code --json} prints a JSON array.
 *
 * <p><b>Thread safety:</b> not thread-safe; one instance per invocation.
 */
@Command(name = "backends", mixinStandardHelpOptions = true,
        description = "Lists every backend found, available or not (with the cause), priority, capabilities and"
                + " native library version.")
public final class BackendsCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private ProviderSource source;

    @Option(names = "--json", description = "Print a JSON array, one object per provider.")
    private boolean json;

    /** For picocli. */
    public BackendsCommand() {
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        List<ProviderInfo> providers = source.providers();
        if (json) {
            out.println(ProviderReport.json(providers));
        } else {
            ProviderReport.printTable(providers, out);
        }
        out.flush();
        return 0;
    }
}
