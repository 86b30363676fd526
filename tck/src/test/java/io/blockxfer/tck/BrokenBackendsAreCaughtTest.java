package io.blockxfer.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

import io.blockxfer.transport.CancelMode;
import io.blockxfer.transport.CompletionHandler;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PollResult;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

/**
 * The kit tests itself: each deliberately broken loopback variant must fail the rule that names
 * its defect, and the unbroken backend must pass that same rule.
 */
class BrokenBackendsAreCaughtTest {

    @BeforeAll
    static void shortTimeouts() {
        System.setProperty("blockxfer.tck.timeoutMillis", "2000");
        System.setProperty("blockxfer.tck.stressMillis", "1500");
    }

    @AfterAll
    static void restoreTimeouts() {
        System.clearProperty("blockxfer.tck.timeoutMillis");
        System.clearProperty("blockxfer.tck.stressMillis");
    }

    /** A suite over loopback whose initiators are broken by the current decorator. */
    static class BrokenLoopback extends TransportConformanceSuite {
        static volatile UnaryOperator<DataTransport> breakage = UnaryOperator.identity();

        @Override
        protected TckHarness harness() {
            return LoopbackConformanceTest.loopbackHarness().withInitiatorDecorator(breakage);
        }
    }

    private static Events run(UnaryOperator<DataTransport> breakage, String rule) {
        BrokenLoopback.breakage = breakage;
        try {
            return EngineTestKit.engine("junit-jupiter").selectors(selectMethod(BrokenLoopback.class, rule))
                    .execute().testEvents();
        } finally {
            BrokenLoopback.breakage = UnaryOperator.identity();
        }
    }

    private static void assertCaught(UnaryOperator<DataTransport> breakage, String rule, String ruleId) {
        Events good = run(UnaryOperator.identity(), rule);
        assertEquals(1, good.succeeded().count(), "the unbroken backend must pass " + ruleId);
        Events bad = run(breakage, rule);
        assertEquals(1, bad.failed().count(), "the broken backend must fail " + ruleId);
        Throwable why = bad.failed().list().get(0).getPayload(org.junit.platform.engine.TestExecutionResult.class)
                .flatMap(org.junit.platform.engine.TestExecutionResult::getThrowable).orElseThrow();
        assertTrue(String.valueOf(why.getMessage()).contains("[" + ruleId + "]"),
                "the failure must name rule " + ruleId + ": " + why);
    }

    @Test
    @DisplayName("a backend that drops a completion fails [C2]")
    void dropsACompletion() {
        assertCaught(t -> new ForwardingTransport(t) {
            final AtomicBoolean dropped = new AtomicBoolean();

            @Override
            public PollResult poll(String peerId) {
                PollResult r = delegate.poll(peerId);
                if (r.doneCount() > 0 && dropped.compareAndSet(false, true)) {
                    long[] done = r.done();
                    return PollResult.of(java.util.Arrays.copyOfRange(done, 1, done.length), r.failed());
                }
                return r;
            }
        }, "c2_exactlyOnce", "C2");
    }

    @Test
    @DisplayName("a backend that reports a completion twice fails [C2]")
    void reportsACompletionTwice() {
        assertCaught(t -> new ForwardingTransport(t) {
            final AtomicLong last = new AtomicLong(-1);

            @Override
            public PollResult poll(String peerId) {
                PollResult r = delegate.poll(peerId);
                if (r.isEmpty() && last.get() >= 0) {
                    return PollResult.of(new long[] {last.getAndSet(-1)}, new long[0]);
                }
                if (r.doneCount() > 0) {
                    last.compareAndSet(-1, r.doneId(0));
                }
                return r;
            }
        }, "c2_exactlyOnce", "C2");
    }

    @Test
    @DisplayName("a backend whose poll(peer) drains every peer fails [C3]")
    void unscopedPoll() {
        assertCaught(t -> new ForwardingTransport(t) {
            @Override
            public PollResult poll(String peerId) {
                return delegate.pollAll();
            }
        }, "c3_scopedPoll", "C3");
    }

    @Test
    @DisplayName("a backend that ignores an immediate cancel fails [X1]")
    void ignoresCancel() {
        assertCaught(t -> new ForwardingTransport(t) {
            @Override
            public long[] cancel(long[] ids, CancelMode mode) {
                return mode == CancelMode.IMMEDIATE ? new long[0] : delegate.cancel(ids, mode);
            }
        }, "x1_cancelImmediate", "X1");
    }

    @Test
    @DisplayName("a backend that accepts out-of-range indices fails [W6]")
    void acceptsOutOfRangeIndices() {
        assertCaught(t -> new ForwardingTransport(t) {
            @Override
            public long writeBlocks(String peerId, int[] l, int[] r) {
                int[] clamped = r.clone();
                for (int i = 0; i < clamped.length; i++) {
                    clamped[i] = Math.floorMod(clamped[i], 16);
                }
                int[] local = l.clone();
                for (int i = 0; i < local.length; i++) {
                    local[i] = Math.floorMod(local[i], 64);
                }
                return delegate.writeBlocks(peerId, local, clamped);
            }
        }, "w6_outOfRange", "W6");
    }

    @Test
    @DisplayName("a backend that writes one block off fails [W1]")
    void writesToTheWrongBlock() {
        assertCaught(t -> new ForwardingTransport(t) {
            @Override
            public long writeBlocks(String peerId, int[] l, int[] r) {
                int[] shifted = r.clone();
                for (int i = 0; i < shifted.length; i++) {
                    shifted[i] = (shifted[i] + 1) % 64;
                }
                return delegate.writeBlocks(peerId, l, shifted);
            }
        }, "w1_singleBlockWrite", "W1");
    }

    @Test
    @DisplayName("a backend that hides failures fails [F2]")
    void hidesFailures() {
        assertCaught(t -> new ForwardingTransport(t) {
            @Override
            public PollResult poll(String peerId) {
                PollResult r = delegate.poll(peerId);
                return PollResult.of(r.done(), new long[0]);
            }
        }, "f2_stallDeadline", "F2");
    }

    @Test
    @DisplayName("a backend whose close is not idempotent fails [L1]")
    void closeNotIdempotent() {
        assertCaught(t -> new ForwardingTransport(t) {
            final AtomicBoolean closed = new AtomicBoolean();

            @Override
            public void close() {
                if (!closed.compareAndSet(false, true)) {
                    throw new IllegalStateException("already closed");
                }
                delegate.close();
            }
        }, "l1_closeIdempotent", "L1");
    }

    @Test
    @DisplayName("a backend that answers polls after close fails [L2]")
    void answersAfterClose() {
        assertCaught(t -> new ForwardingTransport(t) {
            volatile boolean closed;

            @Override
            public PollResult poll(String peerId) {
                return closed ? PollResult.EMPTY : delegate.poll(peerId);
            }

            @Override
            public void close() {
                closed = true;
                delegate.close();
            }
        }, "l2_useAfterClose", "L2");
    }

    @Test
    @DisplayName("a backend that reports to the wrong peer's handler poll fails [S2]")
    void stressCatchesMisroutedReports() {
        assertCaught(t -> new ForwardingTransport(t) {
            @Override
            public int poll(String peerId, CompletionHandler h) {
                return delegate.pollAll(h);
            }
        }, "s2_stressLedger", "S2");
    }

    @Test
    @DisplayName("every rule id in the suite has an entry in ConformanceRules")
    void everyRuleIsDocumented() {
        List<String> ids = java.util.Arrays.stream(TransportConformanceSuite.class.getDeclaredMethods())
                .filter(m -> m.isAnnotationPresent(org.junit.jupiter.api.Test.class))
                .map(m -> m.getAnnotation(DisplayName.class).value())
                .map(n -> n.substring(1, n.indexOf(']'))).sorted().toList();
        List<String> documented = java.util.Arrays.stream(ConformanceRules.values()).map(Enum::name).sorted().toList();
        assertEquals(documented, ids);
        assertTrue(java.util.Arrays.stream(TransportConformanceSuite.class.getDeclaredMethods())
                .filter(m -> m.isAnnotationPresent(org.junit.jupiter.api.Test.class))
                .allMatch(m -> java.lang.reflect.Modifier.isFinal(m.getModifiers())), "test methods must be final");
    }
}
