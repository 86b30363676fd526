package io.blockxfer.cli.internal;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

import io.blockxfer.loopback.LoopbackFaults;
import io.blockxfer.tck.InJvmHarness;
import io.blockxfer.tck.TckHarness;
import io.blockxfer.tck.TransportConformanceSuite;
import io.blockxfer.tck.TwoProcessHarness;
import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.spi.TransportProvider;
import java.io.File;
import java.io.PrintWriter;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.DisplayName;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.launcher.EngineFilter;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

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
        List<DiscoverySelector> selectors = selectors();
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectors)
                .filters(EngineFilter.includeEngines("junit-jupiter"))
                .configurationParameter("junit.jupiter.execution.parallel.enabled", "false")
                .configurationParameter("junit.jupiter.extensions.autodetection.enabled", "false")
                .configurationParameter("junit.jupiter.testmethod.order.default",
                        "org.junit.jupiter.api.MethodOrderer$DisplayName")
                .build();
        RuleReporter reporter = new RuleReporter(out);
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
            launcher.execute(request, reporter);
        } finally {
            CliConformanceSuite.uninstall();
            System.setProperty("java.class.path", savedClassPath);
        }
        out.printf(Locale.ROOT, "%s (%s): %d passed, %d failed, %d skipped in %.1f s%n", harness.backend(),
                harness.mode(), reporter.passed(), reporter.failed(), reporter.skipped(),
                (System.nanoTime() - start) / 1e9);
        out.flush();
        return new Outcome(reporter.passed(), reporter.failed(), reporter.skipped());
    }

    private List<DiscoverySelector> selectors() {
        if (rules.isEmpty()) {
            return List.of(selectClass(CliConformanceSuite.class));
        }
        List<DiscoverySelector> selectors = new ArrayList<>();
        Set<String> unmatched = new TreeSet<>(rules);
        for (Method m : TransportConformanceSuite.class.getMethods()) {
            DisplayName name = m.getAnnotation(DisplayName.class);
            if (name == null || !name.value().startsWith("[")) {
                continue;
            }
            String id = name.value().substring(1, name.value().indexOf(']'));
            if (rules.contains(id)) {
                selectors.add(selectMethod(CliConformanceSuite.class, m));
                unmatched.remove(id);
            }
        }
        if (!unmatched.isEmpty()) {
            throw CliException.usage("unknown conformance rule ids " + unmatched
                    + " (rules are listed by 'blockxfer tck --list-rules')");
        }
        return selectors;
    }

    /** Every rule id with its display name, in the suite's order. */
    public static List<String> ruleNames() {
        List<String> names = new ArrayList<>();
        for (Method m : TransportConformanceSuite.class.getMethods()) {
            DisplayName name = m.getAnnotation(DisplayName.class);
            if (name != null && name.value().startsWith("[")) {
                names.add(name.value());
            }
        }
        names.sort(null);
        return names;
    }
}
