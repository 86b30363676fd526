package io.blockxfer.cli;

import io.blockxfer.cli.internal.CliException;
import io.blockxfer.cli.internal.ProviderSource;
import io.blockxfer.cli.internal.TckRunner;
import io.blockxfer.transport.ProviderInfo;
import io.blockxfer.transport.spi.TransportProvider;
import java.io.PrintWriter;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code blockxfer tck}: certifies a backend with the conformance kit, including a backend from a
 * jar outside this repository ({@code --classpath}). Prints each rule id with pass, fail or skip
 * and the reason; exits with 1 when a rule fails.
 *
 * <p><b>Thread safety:</b> not thread-safe; one instance per invocation.
 */
@Command(name = "tck", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Runs the conformance kit against a backend and prints each rule with PASS, FAIL or SKIP.")
public final class TckCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private ProviderSource source;

    @Option(names = "--backend", paramLabel = "NAME", description = "The backend to certify (a provider name).")
    private @Nullable String backend;

    @Option(names = "--two-process", description = "Place each target in a child JVM (needs CROSS_PROCESS).")
    private boolean twoProcess;

    @Option(names = "--rules", split = ",", paramLabel = "ID",
            description = "Run only these rules, e.g. W1,C2 (default: all).")
    private List<String> rules = new ArrayList<>();

    @Option(names = "--list-rules", description = "List the rule ids and exit.")
    private boolean listRules;

    @Option(names = "--verbose", description = "Show the backends' own log warnings (the kit provokes failures on"
            + " purpose, so they are hidden by default).")
    private boolean verbose;

    /** For picocli. */
    public TckCommand() {
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        if (listRules) {
            TckRunner.ruleNames().forEach(out::println);
            out.flush();
            return 0;
        }
        if (backend == null || backend.isBlank()) {
            throw CliException.usage("missing --backend NAME (see 'blockxfer backends')");
        }
        ProviderInfo info = source.providers().stream().filter(p -> p.name().equals(backend)).findFirst()
                .orElse(null);
        if (info == null) {
            // let discovery word the error: it lists every provider found
            source.select(backend);
            throw new CliException("unknown backend '" + backend + "'");
        }
        if (!info.isAvailable()) {
            throw new CliException("backend '" + backend + "' is unavailable here: " + info.availability().cause());
        }
        TransportProvider provider = info.provider().orElseThrow();
        out.println("blockxfer tck: " + provider.name() + " (" + (twoProcess ? "two-process" : "in-jvm")
                + "), provider " + provider.getClass().getName() + where(provider));
        out.flush();
        Logger blockxferLogs = Logger.getLogger("io.blockxfer");
        Level level = blockxferLogs.getLevel();
        if (!verbose) {
            blockxferLogs.setLevel(Level.SEVERE);
        }
        try {
            TckRunner.Outcome outcome = new TckRunner(provider, twoProcess, source.entries(), new HashSet<>(rules))
                    .run(out);
            return outcome.failed() > 0 ? 1 : 0;
        } finally {
            blockxferLogs.setLevel(level);
        }
    }

    private static String where(TransportProvider provider) {
        CodeSource cs = provider.getClass().getProtectionDomain().getCodeSource();
        return cs == null || cs.getLocation() == null ? "" : " from " + cs.getLocation().getPath();
    }
}
