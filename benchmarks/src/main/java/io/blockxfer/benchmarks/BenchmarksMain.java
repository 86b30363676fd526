package io.blockxfer.benchmarks;

import io.blockxfer.transport.Capability;
import io.blockxfer.transport.ProviderInfo;
import io.blockxfer.transport.Transports;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * The benchmarks jar's entry point: JMH's own command line, except that the {@code backend}
 * parameter defaults to every backend available here (loopback always) instead of only loopback,
 * {@code notifyingBackend} to every available one that carries notifications, benchmarks named {@code *nixl*} are left out while NIXL is unavailable, and the
 * {@code blockxfer.*} system properties (such as {@code blockxfer.natives.dir}) reach the forks.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar                     # everything
 * java -jar benchmarks/target/benchmarks.jar SubmitPoll -prof gc # overhead and allocation per transfer
 * java -jar benchmarks/target/benchmarks.jar -p backend=loopback WriteThroughput
 * </pre>
 *
 * <p><b>Thread safety:</b> a program.
 */
public final class BenchmarksMain {

    private BenchmarksMain() {
    }

    /** Runs JMH. */
    public static void main(String[] args) throws RunnerException, IOException {
        CommandLineOptions cli;
        try {
            cli = new CommandLineOptions(args);
        } catch (CommandLineOptionException e) {
            System.err.println("benchmarks: " + e.getMessage());
            System.exit(2);
            return;
        }
        if (cli.shouldHelp() || cli.shouldList() || cli.shouldListWithParams() || cli.shouldListProfilers()
                || cli.shouldListResultFormats()) {
            org.openjdk.jmh.Main.main(args);
            return;
        }
        ChainedOptionsBuilder options = new OptionsBuilder().parent(cli);
        List<String> available = new ArrayList<>();
        List<String> notifying = new ArrayList<>();
        boolean nixl = false;
        for (ProviderInfo p : Transports.providers(BenchmarksMain.class.getClassLoader())) {
            if (p.isAvailable()) {
                available.add(p.name());
                if (p.capabilities().contains(Capability.NOTIFICATIONS)) {
                    notifying.add(p.name());
                }
                nixl |= p.name().equals("nixl");
            } else {
                System.err.println("benchmarks: leaving out " + p.name() + ": " + p.availability().cause());
            }
        }
        if (cli.getParameter("backend").hasValue()) {
            available.clear();
        } else if (!available.isEmpty()) {
            options.param("backend", available.toArray(String[]::new));
        }
        if (!cli.getParameter("notifyingBackend").hasValue() && !notifying.isEmpty()) {
            options.param("notifyingBackend", notifying.toArray(String[]::new));
        }
        if (!nixl) {
            options.exclude(".*[Nn]ixl.*\\.nixl.*");
        }
        List<String> jvmArgs = new ArrayList<>();
        System.getProperties().forEach((k, v) -> {
            if (String.valueOf(k).startsWith("blockxfer.")) {
                jvmArgs.add("-D" + k + "=" + v);
            }
        });
        if (!jvmArgs.isEmpty()) {
            options.jvmArgsAppend(jvmArgs.toArray(String[]::new));
        }
        new Runner(options.build()).run();
    }
}
