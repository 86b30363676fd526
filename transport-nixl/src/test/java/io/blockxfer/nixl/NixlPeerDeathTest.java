package io.blockxfer.nixl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.tck.TargetProcess;
import io.blockxfer.tck.process.ChildJvm;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.PollResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Dead and frozen peers in another process, with timings printed: a target JVM killed with
 * SIGKILL while transfers stream to it, and a target frozen with SIGSTOP over UCX's TCP transport,
 * where NIXL itself would wait for ever. In both, every transfer is reported within a bound and
 * the initiator stays usable.
 */
// full tier: the fast tier kills and stalls NIXL targets in other processes with the kit's F1 and F2
// (NixlAcrossProcessesConformanceTest); this adds shared memory and the timings printed
@Tag("full")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NixlPeerDeathTest {

    private static final int BLOCKS = 64;
    private static final long BLOCK = 64 * 1024;
    private static final Duration DEADLINE = Duration.ofMillis(1500);

    private final List<Child> children = new ArrayList<>();
    private DataTransport initiator;

    @BeforeEach
    void check() {
        NixlTests.assumeNixl();
    }

    @AfterEach
    void cleanUp() {
        if (initiator != null) {
            initiator.close();
        }
        children.forEach(Child::close);
    }

    @Test
    void sigkillFailsTransfersInFlightAndLaterSubmitsWithinTheBound() {
        sigkill("shared memory (CMA)", Map.of());
    }

    @Test
    void sigkillOverTcpFailsTransfersInFlightAndLaterSubmitsWithinTheBound() {
        sigkill("TCP", Map.of("nixl.ucx.engine_config", "TLS=tcp"));
    }

    private void sigkill(String transport, Map<String, String> options) {
        Child target = new Child("death-target", options);
        children.add(target);
        Child other = new Child("death-other", options);
        children.add(other);
        initiator = NixlTests.open(NixlTests.config("death-initiator", BLOCKS, BLOCK).transferTimeout(DEADLINE)
                .options(options).build());
        initiator.addPeer("t", target.descriptor);
        initiator.addPeer("o", other.descriptor);
        int[] run = range(0, 32);
        Set<Long> beforeKill = new HashSet<>();
        Map<Long, Boolean> outcomes = new HashMap<>();
        Map<Long, Long> reportedAt = new HashMap<>();
        long streamUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
        while (System.nanoTime() < streamUntil) {
            beforeKill.add(initiator.writeBlocks("t", run, range(32, 32)));
            drain(initiator, "t", outcomes, reportedAt);
        }
        for (int i = 0; i < 16; i++) {
            beforeKill.add(initiator.writeBlocks("t", run, range(32, 32)));
        }
        target.kill();
        long killedAt = System.nanoTime();
        Set<Long> afterKill = new HashSet<>();
        long firstFailureAt = 0;
        long firstRefusedAt = 0;
        long deadline = killedAt + DEADLINE.plusSeconds(2).toNanos();
        while (System.nanoTime() < deadline) {
            long id = initiator.writeBlocks("t", new int[] {1}, new int[] {1});
            afterKill.add(id);
            drain(initiator, "t", outcomes, reportedAt);
            for (Map.Entry<Long, Boolean> e : outcomes.entrySet()) {
                if (!e.getValue() && reportedAt.get(e.getKey()) >= killedAt) {
                    firstFailureAt = firstFailureAt == 0 ? reportedAt.get(e.getKey()) : Math.min(firstFailureAt,
                            reportedAt.get(e.getKey()));
                    if (afterKill.contains(e.getKey()) && firstRefusedAt == 0) {
                        firstRefusedAt = reportedAt.get(e.getKey());
                    }
                }
            }
            if (outcomes.keySet().containsAll(beforeKill) && firstRefusedAt != 0) {
                break;
            }
            LockSupport.parkNanos(1_000_000);
        }
        long lastBefore = beforeKill.stream().mapToLong(id -> reportedAt.getOrDefault(id, Long.MAX_VALUE)).max()
                .orElse(0);
        long failedBefore = beforeKill.stream().filter(id -> Boolean.FALSE.equals(outcomes.get(id))).count();
        System.out.printf("SIGKILL over %s: %d transfers before the kill (%d failed), last reported %.1f ms after the"
                + " kill; first failure %.1f ms after; submits refused (reported failed) from %.1f ms after%n",
                transport, beforeKill.size(), failedBefore, ms(lastBefore - killedAt), ms(firstFailureAt - killedAt),
                ms(firstRefusedAt - killedAt));
        assertTrue(outcomes.keySet().containsAll(beforeKill), "every transfer submitted before the kill is reported");
        assertTrue(lastBefore - killedAt <= DEADLINE.plusSeconds(1).toNanos(), "reported within the deadline + 1 s");
        assertTrue(firstRefusedAt != 0, "a submit after the death is reported failed");
        // the other peer is untouched
        long ok = initiator.writeBlocks("o", new int[] {3}, new int[] {4});
        assertEquals(Map.of(ok, true), NixlTests.await(initiator, "o", Set.of(ok), Duration.ofSeconds(10)));
    }

    @Test
    void sigstopOverTcpFailsAtTheDeadlineAndThePeerCanBeAddedAgain() throws Exception {
        Map<String, String> tcp = Map.of("nixl.ucx.engine_config", "TLS=tcp");
        Child target = new Child("frozen-target", tcp);
        children.add(target);
        initiator = NixlTests.open(NixlTests.config("frozen-initiator", BLOCKS, BLOCK).transferTimeout(DEADLINE)
                .options(tcp).build());
        initiator.addPeer("t", target.descriptor);
        long warm = initiator.writeBlocks("t", range(0, 8), range(0, 8));
        assertEquals(Map.of(warm, true), NixlTests.await(initiator, "t", Set.of(warm), Duration.ofSeconds(20)));
        target.suspend();
        long stoppedAt = System.nanoTime();
        Set<Long> ids = new HashSet<>();
        // 64 MiB: more than the kernel's socket buffers, which would otherwise absorb the WRITEs and let
        // UCX complete them locally although the peer is frozen
        for (int i = 0; i < 32; i++) {
            ids.add(initiator.writeBlocks("t", range(0, 32), range(32, 32)));
        }
        long submitted = System.nanoTime() - stoppedAt;
        Map<Long, Boolean> outcomes = NixlTests.await(initiator, "t", ids, DEADLINE.plusSeconds(10));
        long took = System.nanoTime() - stoppedAt;
        long failed = outcomes.values().stream().filter(ok -> !ok).count();
        System.out.printf("SIGSTOP over TCP: %d of %d transfers failed, all reported %.1f ms after the freeze"
                + " (deadline %d ms; submitting took %.1f ms)%n", failed, ids.size(), ms(took), DEADLINE.toMillis(),
                ms(submitted));
        assertTrue(failed > 0, "a frozen peer's transfers fail at the deadline");
        assertTrue(took <= DEADLINE.plusSeconds(5).toNanos(), "reported within the deadline + 5 s");
        target.resume();
        initiator.addPeer("t", target.descriptor);
        long again = initiator.writeBlocks("t", new int[] {5}, new int[] {6});
        assertEquals(Map.of(again, true), NixlTests.await(initiator, "t", Set.of(again), Duration.ofSeconds(20)),
                "after the thaw and a re-add");
        assertFalse(initiator.feature(NixlTelemetry.class).orElseThrow().recent(10).isEmpty());
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }

    private static int[] range(int from, int count) {
        int[] r = new int[count];
        for (int i = 0; i < count; i++) {
            r[i] = from + i;
        }
        return r;
    }

    private static void drain(DataTransport t, String peer, Map<Long, Boolean> outcomes, Map<Long, Long> at) {
        PollResult r = t.poll(peer);
        long now = System.nanoTime();
        for (int i = 0; i < r.doneCount(); i++) {
            outcomes.put(r.doneId(i), true);
            at.put(r.doneId(i), now);
        }
        for (int i = 0; i < r.failedCount(); i++) {
            outcomes.put(r.failedId(i), false);
            at.put(r.failedId(i), now);
        }
    }

    /** A {@link TargetProcess} child JVM serving one NIXL transport. */
    private static final class Child implements AutoCloseable {
        final ChildJvm jvm;
        final PeerDescriptor descriptor;

        Child(String name, Map<String, String> options) {
            List<String> args = new ArrayList<>(List.of("nixl", Integer.toString(BLOCKS), Long.toString(BLOCK), name,
                    "60000"));
            options.forEach((k, v) -> args.add("opt:" + k + "=" + v));
            jvm = ChildJvm.builder(TargetProcess.class).name(name).jvmArgs(List.of("-Xmx256m"))
                    .forwardSystemProperties(k -> k.startsWith("blockxfer.") && !k.startsWith("blockxfer.tck."))
                    .args(args).start();
            try {
                String ready = jvm.nextLine(Duration.ofSeconds(60));
                if (!ready.startsWith("READY ")) {
                    throw new IllegalStateException("target " + name + " did not start: " + ready + " ("
                            + jvm.describe() + ")");
                }
                descriptor = PeerDescriptor.decode(Base64.getDecoder().decode(ready.substring(6)));
            } catch (RuntimeException e) {
                jvm.kill();
                throw e;
            }
        }

        void kill() {
            jvm.kill();
        }

        void suspend() {
            jvm.suspend();
        }

        void resume() {
            jvm.resume();
        }

        @Override
        public void close() {
            if (jvm.isAlive() && !jvm.isSuspended()) {
                jvm.send("CLOSE");
            }
            jvm.close(); // thaws a frozen target, closes its stdin, kills it after 15 s
        }
    }
}
