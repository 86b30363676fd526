package io.blockxfer.cli.internal;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import io.blockxfer.loopback.LoopbackFaults;
import io.blockxfer.tck.ConformanceRules;
import io.blockxfer.tck.InJvmHarness;
import io.blockxfer.tck.TckHarness;
import io.blockxfer.tck.TwoProcessHarness;
import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.spi.TransportProvider;
import java.io.File;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.junit.platform.engine.FilterResult;
import org.junit.platform.launcher.EngineFilter;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.PostDiscoveryFilter;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * Runs the conformance kit against one provider through the JUnit Platform launcher, in one JVM
 * or with targets in child processes, and reports each rule through a {@link RuleReporter}.
 * Backends that declare {@link Capability#FAULT_INJECTION} have their targets killed and stalled
 * through {@link LoopbackFaults}, as the loopback backend's own conformance test does.
 *
 * <p><b>Thread safety:</b> not thread-safe; one run at a time per JVM (the suite's harness is
 * global).
 */
public final class TckRunner {

    /**
     * How many rules passed, failed and were skipped.
     *
     * <p><b>Thread safety:</b> immutable.
     *
     * @param passed rules that passed
     * @param failed rules (or suite-level containers) that failed
     * @param skipped rules skipped, with a reason printed
     */
    public record Outcome(int passed, int failed, int skipped) {
    }

    private final TransportProvider provider;
    private final boolean twoProcess;
    private final List<Path> extraClassPath;
    private final Set<String> rules;

    /**
     * A run of {@code rules} (all when empty) against {@code provider}; {@code extraClassPath} is
     * added to the class path of target processes.
     */
    public TckRunner(TransportProvider provider, boolean twoProcess, List<Path> extraClassPath, Set<String> rules) {
        this.provider = provider;
        this.twoProcess = twoProcess;
        this.extraClassPath = List.copyOf(extraClassPath);
        this.rules = new TreeSet<>(rules.stream().map(r -> r.strip().toUpperCase(Locale.ROOT)).toList());
    }

    /** The harness for the provider: in-JVM, with fault hooks where declared, or two-process. */
    TckHarness harness() {
        InJvmHarness local = InJvmHarness.of(provider);
        if (provider.capabilities().contains(Capability.FAULT_INJECTION)) {
            local = local.withKill(t -> {
                t.feature(LoopbackFaults.class).ifPresent(LoopbackFaults::kill);
                t.close();
            }).withStall((t, stalled) -> faults(t).stall(stalled));
        }
        if (!twoProcess) {
            return local;
        }
        if (!provider.capabilities().contains(Capability.CROSS_PROCESS)) {
            throw CliException.usage("--two-process needs a backend whose peers can live in different processes; "
                    + provider.name() + " lacks " + Capability.CROSS_PROCESS);
        }
        return TwoProcessHarness.of(local);
    }

    private static LoopbackFaults faults(DataTransport t) {
        return t.feature(LoopbackFaults.class).orElseThrow(() -> new UnsupportedOperationException(
                t.backendName() + " declares FAULT_INJECTION but offers no LoopbackFaults feature"));
    }

    /** Runs the kit, printing one line per rule and a summary on {@code out}. */
    public Outcome run(PrintWriter out) {
        TckHarness harness = harness();
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(CliConformanceSuite.class))
                .filters(EngineFilter.includeEngines("junit-jupiter"), ruleFilter())
                .configurationParameter("junit.jupiter.execution.parallel.enabled", "false")
                .configurationParameter("junit.jupiter.extensions.autodetection.enabled", "false")
                .configurationParameter("junit.jupiter.testmethod.order.default",
                        "org.junit.jupiter.api.MethodOrderer$DisplayName")
                .build();
        SummaryGeneratingListener summary = new SummaryGeneratingListener();
        String savedClassPath = System.getProperty("java.class.path");
        long start = System.nanoTime();
        CliConformanceSuite.install(harness);
        try {
            if (twoProcess && !extraClassPath.isEmpty()) {
                // TwoProcessHarness starts targets on this JVM's class path: let them see the extra jars
                System.setProperty("java.class.path", savedClassPath + File.pathSeparator + String.join(
                        File.pathSeparator, extraClassPath.stream().map(Path::toString).toList()));
            }
            Launcher launcher = LauncherFactory.create();
            launcher.execute(request, new RuleReporter(out), summary);
        } finally {
            CliConformanceSuite.uninstall();
            System.setProperty("java.class.path", savedClassPath);
        }
        TestExecutionSummary s = summary.getSummary();
        Outcome outcome = new Outcome((int) s.getTestsSucceededCount(), (int) (s.getTestsFailedCount()
                + s.getContainersFailedCount()), (int) (s.getTestsSkippedCount() + s.getTestsAbortedCount()));
        out.printf(Locale.ROOT, "%s (%s): %d passed, %d failed, %d skipped in %.1f s%n", harness.backend(),
                harness.mode(), outcome.passed(), outcome.failed(), outcome.skipped(), (System.nanoTime() - start) / 1e9);
        out.flush();
        return outcome;
    }

    /** Keeps the tests of the chosen rules (all when none were chosen), by the id their display name starts with. */
    private PostDiscoveryFilter ruleFilter() {
        Set<String> unknown = new TreeSet<>(rules);
        Arrays.stream(ConformanceRules.values()).map(Enum::name).forEach(unknown::remove);
        if (!unknown.isEmpty()) {
            throw CliException.usage("unknown conformance rule ids " + unknown
                    + " (rules are listed by 'blockxfer tck --list-rules')");
        }
        return descriptor -> {
            String name = descriptor.getDisplayName();
            boolean chosen = !descriptor.isTest() || rules.isEmpty()
                    || (name.startsWith("[") && rules.contains(name.substring(1, Math.max(1, name.indexOf(']')))));
            return chosen ? FilterResult.included("chosen rule") : FilterResult.excluded("not among " + rules);
        };
    }

    /** Every rule id with its class and what it checks, in the kit's order. */
    public static List<String> ruleNames() {
        return Arrays.stream(ConformanceRules.values()).map(ConformanceRules::displayName).toList();
    }
}
