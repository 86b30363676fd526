package io.blockxfer.transport.spi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.transport.CancelMode;
import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.PeerRegistrationException;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.RegistrationSupersededException;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.testing.ScriptedEngine;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The contract pieces that need an engine whose outcomes the test controls. */
class ManagedTransportTest {

    private final TransportConfig config = TransportConfig.builder(RegionSpec.allocate(16, 64))
            .transferTimeout(Duration.ofMillis(300)).closeTimeout(Duration.ofMillis(300)).build();
    private final ScriptedEngine engine = new ScriptedEngine(config);
    private final ManagedTransport transport = new ManagedTransport(engine, config, EnumSet.of(Capability.READ));
    private final PeerDescriptor peer = new PeerDescriptor("scripted", "", 4096, 16, 64, new byte[] {1});

    @AfterEach
    void close() {
        engine.completeAll(ScriptedEngine.DONE);
        transport.close();
    }

    private long write(int local, int remote) {
        return transport.writeBlocks("p", new int[] {local}, new int[] {remote});
    }

    @Test
    void aSubmitThatThrowsIsReportedFailedAndNeverThrown() {
        transport.addPeer("p", peer);
        engine.submitFailure = new IllegalStateException("native post failed");
        long id = write(0, 0);
        assertTrue(id >= 0);
        assertEquals(PollResult.of(new long[0], new long[] {id}), transport.poll("p"));
        assertSame(PollResult.EMPTY, transport.poll("p"));
    }

    @Test
    void aStatusCheckThatThrowsEndsTheTransferAsFailed() {
        transport.addPeer("p", peer);
        long id = write(1, 2);
        engine.last().throwOnStatus = true;
        engine.last().status = ScriptedEngine.FAILED; // what a broken handle is, so release may run
        assertEquals(PollResult.of(new long[0], new long[] {id}), transport.poll("p"));
    }

    @Test
    void aReleaseThatThrowsStillReportsTheTransferOnce() {
        transport.addPeer("p", peer);
        engine.releaseFailure = new IllegalStateException("release failed");
        long id = write(1, 2);
        engine.last().status = ScriptedEngine.DONE;
        assertEquals(PollResult.of(new long[] {id}, new long[0]), transport.poll("p"));
        assertSame(PollResult.EMPTY, transport.poll("p"));
    }

    @Test
    void rejectedArgumentsConsumeNoIdAndChangeNothing() {
        transport.addPeer("p", peer);
        long first = write(0, 0);
        assertThrows(IllegalArgumentException.class, () -> write(16, 0));
        assertThrows(IllegalArgumentException.class, () -> write(0, 16));
        assertThrows(IllegalArgumentException.class, () -> transport.writeBlocks("p", new int[0], new int[0]));
        assertEquals(first + 1, write(0, 0));
        assertEquals(2, engine.transfers.size());
    }

    @Test
    void removingAPeerKeepsItsNativeStateUntilItsLastTransferIsTerminal() {
        transport.addPeer("p", peer);
        long done = write(0, 0);
        long pending = write(1, 1);
        engine.transfers.get(0).status = ScriptedEngine.DONE;
        Object handle = engine.last().peer;
        assertTrue(transport.removePeer("p"));
        assertEquals(java.util.List.of(handle), engine.aborted);
        assertTrue(engine.disconnected.isEmpty(), "disconnected under a transfer in flight");
        assertEquals(PollResult.of(new long[] {done}, new long[] {pending}), transport.poll("p"));
        assertEquals(DataTransport.NOT_SUBMITTED, write(0, 0));
        engine.last().status = ScriptedEngine.DONE;
        assertSame(PollResult.EMPTY, transport.pollAll());
        assertEquals(java.util.List.of(handle), engine.disconnected);
    }

    @Test
    void anImmediateCancelKeepsTheHandleUntilTheEngineLetsGo() {
        transport.addPeer("p", peer);
        long id = write(3, 4);
        ScriptedEngine.Transfer t = engine.last();
        assertArrayEquals(new long[0], transport.cancel(new long[] {id}, CancelMode.IMMEDIATE));
        assertFalse(t.released);
        t.status = ScriptedEngine.DONE;
        assertSame(PollResult.EMPTY, transport.poll("p"));
        assertTrue(t.released, "a cancelled handle must be released once terminal");
    }

    @Test
    void aWaitCancelReturnsWhatIsInFlightAndSilentlyReleasesTheRest() {
        transport.addPeer("p", peer);
        long a = write(0, 0);
        long b = write(1, 1);
        engine.transfers.get(0).status = ScriptedEngine.DONE;
        assertArrayEquals(new long[] {b}, transport.cancel(new long[] {a, b}, CancelMode.WAIT));
        assertTrue(engine.transfers.get(0).released);
        engine.transfers.get(1).status = ScriptedEngine.FAILED;
        assertEquals(PollResult.of(new long[0], new long[] {b}), transport.poll("p"));
    }

    @Test
    void anOverdueTransferIsFailedAtTheDeadlineAndItsPeerAborted() throws InterruptedException {
        transport.addPeer("p", peer);
        long id = write(0, 0);
        ScriptedEngine.Transfer t = engine.last();
        assertSame(PollResult.EMPTY, transport.poll("p"));
        Thread.sleep(350);
        assertEquals(PollResult.of(new long[0], new long[] {id}), transport.poll("p"));
        assertEquals(1, engine.aborted.size());
        assertFalse(t.released, "an overdue handle still in flight must not be released");
        t.status = ScriptedEngine.FAILED;
        transport.poll("p");
        assertTrue(t.released);
    }

    @Test
    void aSupersededRegistrationReleasesWhatItBuiltAndFailsDistinctly() throws Exception {
        engine.connectGate = new CountDownLatch(1);
        CompletableFuture<Void> f = transport.addPeerAsync("p", peer);
        assertTrue(engine.connectEntered.await(5, TimeUnit.SECONDS));
        assertTrue(transport.removePeer("p"), "a peer being registered is known");
        engine.connectGate.countDown();
        var e = assertThrows(ExecutionException.class, () -> f.get(5, TimeUnit.SECONDS));
        assertInstanceOf(RegistrationSupersededException.class, e.getCause());
        assertEquals(1, engine.disconnected.size(), "the superseded handle must be released");
        assertEquals(DataTransport.NOT_SUBMITTED, write(0, 0));
    }

    @Test
    void theLaterOfTwoRegistrationsWins() throws Exception {
        engine.connectGate = new CountDownLatch(1);
        CompletableFuture<Void> first = transport.addPeerAsync("p", peer);
        assertTrue(engine.connectEntered.await(5, TimeUnit.SECONDS));
        CompletableFuture<Void> second = transport.addPeerAsync("p", peer);
        engine.connectGate.countDown();
        second.get(5, TimeUnit.SECONDS);
        var e = assertThrows(ExecutionException.class, () -> first.get(5, TimeUnit.SECONDS));
        assertInstanceOf(RegistrationSupersededException.class, e.getCause());
        assertTrue(write(0, 0) >= 0);
    }

    @Test
    void aFailedRegistrationIsTypedAndLeavesNothingBehind() {
        engine.connectFailure = new IllegalStateException("wireup failed");
        var e = assertThrows(PeerRegistrationException.class, () -> transport.addPeer("p", peer));
        assertTrue(e.getMessage().contains("wireup failed"));
        assertEquals(DataTransport.NOT_SUBMITTED, write(0, 0));
        assertFalse(transport.removePeer("p"));
    }

    @Test
    void closeWaitsForTransfersThenLeaksWhatNeverEnds() {
        transport.addPeer("p", peer);
        write(0, 0);
        long start = System.nanoTime();
        transport.close();
        long tookMillis = (System.nanoTime() - start) / 1_000_000;
        assertTrue(tookMillis >= 250 && tookMillis < 3_000, "close took " + tookMillis + " ms");
        assertTrue(engine.closed);
        assertTrue(engine.closedLeaked, "memory under a transfer in flight must not be freed");
        assertFalse(engine.last().released);
        assertTrue(engine.disconnected.isEmpty());
        assertThrows(IllegalStateException.class, () -> write(0, 0));
    }

    @Test
    void closeAfterTerminalTransfersFreesEverything() {
        transport.addPeer("p", peer);
        write(0, 0);
        engine.completeOnAbort = true;
        engine.last().status = ScriptedEngine.DONE;
        transport.close();
        assertFalse(engine.closedLeaked);
        assertEquals(1, engine.disconnected.size());
        assertTrue(engine.last().released);
    }

    @Test
    void readsNeedTheReadCapability() {
        ManagedTransport writeOnly = new ManagedTransport(new ScriptedEngine(config), config, EnumSet.noneOf(Capability.class));
        try {
            var e = assertThrows(UnsupportedOperationException.class,
                    () -> writeOnly.readBlocks("p", new int[] {0}, new int[] {0}));
            assertTrue(e.getMessage().contains("READ"));
        } finally {
            writeOnly.close();
        }
    }

    @Test
    void anEngineDecoratorActsOnlyOnTransportsBuiltInsideItsOpenOnItsThread() throws Exception {
        ScriptedEngine inner = new ScriptedEngine(config);
        ScriptedEngine replacement = new ScriptedEngine(config);
        ManagedTransport decorated = ManagedTransport.withEngineDecorator(e -> {
            assertSame(inner, e);
            return replacement;
        }, () -> new ManagedTransport(inner, config, EnumSet.noneOf(Capability.class)));
        CompletableFuture<ManagedTransport> elsewhere = new CompletableFuture<>();
        ManagedTransport.withEngineDecorator(e -> {
            throw new AssertionError("a transport built on another thread was decorated");
        }, () -> {
            Thread.ofPlatform().start(() -> elsewhere.complete(new ManagedTransport(new ScriptedEngine(config), config,
                    EnumSet.noneOf(Capability.class))));
            return elsewhere.join();
        });
        ManagedTransport after = new ManagedTransport(new ScriptedEngine(config), config,
                EnumSet.noneOf(Capability.class));
        try {
            decorated.addPeer("p", peer);
            decorated.writeBlocks("p", new int[] {0}, new int[] {0});
            assertEquals(1, replacement.transfers.size(), "the decorator's engine carries the transfers");
            assertTrue(inner.transfers.isEmpty());
        } finally {
            replacement.completeAll(ScriptedEngine.DONE);
            decorated.close();
            elsewhere.get(5, TimeUnit.SECONDS).close();
            after.close();
            inner.close(false);
        }
        assertTrue(replacement.closed, "closing the transport closes the engine the decorator returned");
    }

    @Test
    void anEngineDecoratorThatReturnsNothingClosesTheEngineAndFailsTheOpen() {
        ScriptedEngine inner = new ScriptedEngine(config);
        var e = assertThrows(IllegalStateException.class, () -> ManagedTransport.withEngineDecorator(x -> null,
                () -> new ManagedTransport(inner, config, EnumSet.noneOf(Capability.class))));
        assertTrue(e.getMessage().contains("returned null"), e.getMessage());
        assertTrue(inner.closed);
    }
}
