package io.blockxfer.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import io.blockxfer.loopback.LoopbackProvider;
import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.spi.TransportProvider;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.platform.testkit.engine.Events;

/**
 * The kit's engine faults ({@link InJvmHarness#withEngineFaults()}) give a backend without fault
 * injection of its own every rule that needs initiator faults: loopback, stripped of
 * FAULT_INJECTION (so, like UCX and NIXL in one JVM, it can neither stall targets nor fail its
 * submits on purpose), passes them with the kit's faults, skips them without, and its broken
 * variants are still caught through them.
 */
class EngineFaultsTest {

    /** The rules that use initiator faults where no stall holds transfers. */
    private static final List<ConformanceRules> FAULT_RULES = List.of(ConformanceRules.C1, ConformanceRules.C7,
            ConformanceRules.C8, ConformanceRules.F1, ConformanceRules.F3, ConformanceRules.L3, ConformanceRules.L4,
            ConformanceRules.P5, ConformanceRules.P6, ConformanceRules.P9, ConformanceRules.T3, ConformanceRules.X1,
            ConformanceRules.X2, ConformanceRules.X6);
    /** The rules that run only with initiator faults here. */
    private static final Set<ConformanceRules> ONLY_WITH_FAULTS = Set.of(ConformanceRules.C7, ConformanceRules.C8,
            ConformanceRules.F3, ConformanceRules.L4, ConformanceRules.T3);

    private static final Set<Capability> WITHOUT_FAULTS;

    static {
        EnumSet<Capability> c = EnumSet.copyOf(BrokenBackends.ALL);
        c.remove(Capability.FAULT_INJECTION);
        WITHOUT_FAULTS = Set.copyOf(c);
    }

    @BeforeAll
    static void shortTimeouts() {
        BrokenBackendsAreCaughtTest.SETTINGS.forEach(System::setProperty);
    }

    @AfterAll
    static void restoreTimeouts() {
        BrokenBackendsAreCaughtTest.SETTINGS.keySet().forEach(System::clearProperty);
    }

    private static InJvmHarness withoutOwnFaults() {
        return BrokenBackends.engineHarness(UnaryOperator.identity(), WITHOUT_FAULTS);
    }

    private static String why(Events events) {
        return events.failed().list().stream().map(e -> e.getPayload(org.junit.platform.engine.TestExecutionResult.class)
                .flatMap(org.junit.platform.engine.TestExecutionResult::getThrowable).map(String::valueOf)
                .orElse("?")).toList() + " " + events.aborted().list().stream().map(e -> e.getPayload(
                org.junit.platform.engine.TestExecutionResult.class).flatMap(
                org.junit.platform.engine.TestExecutionResult::getThrowable).map(Throwable::getMessage).orElse("?"))
                .toList();
    }

    @TestFactory
    @DisplayName("a backend without FAULT_INJECTION passes every rule that uses initiator faults with the kit's")
    Stream<DynamicTest> rulesRunWithTheKitsFaults() {
        List<DynamicTest> tests = new ArrayList<>();
        for (ConformanceRules rule : FAULT_RULES) {
            tests.add(dynamicTest("[" + rule + "] with the kit's engine faults", () -> {
                Events events = BrokenBackendsAreCaughtTest.run(withoutOwnFaults().withEngineFaults(), rule);
                assertEquals(1, events.succeeded().count(), rule + " must pass: " + why(events));
            }));
        }
        for (ConformanceRules rule : ONLY_WITH_FAULTS) {
            tests.add(dynamicTest("[" + rule + "] is skipped without them", () -> {
                Events events = BrokenBackendsAreCaughtTest.run(withoutOwnFaults(), rule);
                assertEquals(1, events.aborted().count(), rule + " must be skipped: " + why(events));
            }));
        }
        return tests.stream();
    }

    /** A broken backend and the rule that must catch it. */
    private record Caught(ConformanceRules rule, Supplier<InJvmHarness> harness) {
    }

    private static Caught caught(ConformanceRules rule, UnaryOperator<DataTransport> breakage) {
        return new Caught(rule, () -> withoutOwnFaults().withEngineFaults().withInitiatorDecorator(breakage));
    }

    @TestFactory
    @DisplayName("broken backends are caught through the kit's engine faults")
    Stream<DynamicTest> brokenBackendsAreCaughtThroughThem() {
        return Stream.of(
                caught(ConformanceRules.C7, BrokenTransports.handlerReportsFailedAsDone()),
                caught(ConformanceRules.C8, BrokenTransports.reportsInSubmissionOrder()),
                caught(ConformanceRules.L4, BrokenTransports.closeForgetsCancelledTransfers()),
                new Caught(ConformanceRules.T3, () -> BrokenBackends.providerHarness(new StrippedDeadline())
                        .withEngineFaults())).map(c -> dynamicTest("[" + c.rule() + "]", () -> {
                            Events events = BrokenBackendsAreCaughtTest.run(c.harness().get(), c.rule());
                            assertEquals(1, events.failed().count(), c.rule() + " must catch it: " + why(events));
                        }));
    }

    /** T3's broken variant without loopback's own faults, so that the kit's hold its transfers. */
    public static final class StrippedDeadline extends ForwardingProvider<BrokenPromises.DeadlineFromTheFirstBusySubmit> {
        /** For the child JVM of the descriptor rules. */
        public StrippedDeadline() {
            super(new BrokenPromises.DeadlineFromTheFirstBusySubmit());
        }

        @Override
        public Set<Capability> capabilities() {
            return WITHOUT_FAULTS;
        }

        @Override
        public DataTransport open(TransportConfig config) {
            return delegate.open(config);
        }
    }

    @Test
    @DisplayName("a provider that builds its transport on another thread cannot take the kit's faults, and says so")
    void anotherThreadIsRefused() {
        TransportProvider elsewhere = new ForwardingProvider<>(new LoopbackProvider(UnaryOperator.identity(),
                WITHOUT_FAULTS)) {
            @Override
            public DataTransport open(TransportConfig config) {
                return CompletableFuture.supplyAsync(() -> delegate.open(config)).join();
            }
        };
        InJvmHarness h = InJvmHarness.of(elsewhere).withEngineFaults();
        var e = assertThrows(IllegalStateException.class, () -> h.openInitiator(
                TransportConfig.builder(RegionSpec.allocate(4, 4096)).build()));
        assertTrue(e.getMessage().contains("withEngineFaults") && e.getMessage().contains("calls open"),
                e.getMessage());
    }
}
