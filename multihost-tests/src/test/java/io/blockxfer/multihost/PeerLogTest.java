package io.blockxfer.multihost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What rule (d) accepts as UCX's abort of a target, and what it quotes when a peer is gone. The
 * aborts below are targets' output from runs of {@link InitiatorKillTest} (the UCX backend, over
 * TCP; the put's here, the get's in CI), shortened.
 */
class PeerLogTest {

    private static final String UCX_EMULATED_PUT_ABORT = """
            peer t2: target on ucx
            [t2:1    :1:22] ucp_request.inl:319  Fatal: unexpected error: Endpoint timeout
            ==== backtrace (tid:     22) ====
             0  /opt/blockxfer/natives/ucx/libucx/lib/libucs.so.0(ucs_handle_error+0x294) [0x7ffb7078e2f4]
             1  /opt/blockxfer/natives/ucx/libucx/lib/libucs.so.0(ucs_fatal_error_message+0xb2) [0x7ffb7078b572]
             3  /opt/blockxfer/natives/ucx/libucx/lib/libucp.so.0(+0x6d503) [0x7ffb70660503]
             4  /opt/blockxfer/natives/ucx/libucx/lib/libucp.so.0(ucp_put_handler+0x5f) [0x7ffb7066056f]
             8  /opt/blockxfer/natives/ucx/libucx/lib/libuct.so.0(uct_tcp_iface_progress+0x6b) [0x7ffb7071259b]
             9  /opt/blockxfer/natives/ucx/libucx/lib/libucp.so.0(ucp_worker_progress+0x5a) [0x7ffb706423aa]
            =================================
            #  SIGSEGV (0xb) at pc=0x00007ffb731e650f, pid=1, tid=22
            # C  [libc.so.6+0x2650f]  abort+0x170
            """;

    /** The same abort in a get's reply: UCX's backtrace shows the handler as an offset only. */
    private static final String UCX_EMULATED_GET_ABORT = """
            peer t2: target on ucx
            [t2:1    :1:22] ucp_request.inl:319  Fatal: unexpected error: Endpoint timeout
            ==== backtrace (tid:     22) ====
             0  /opt/blockxfer/natives/ucx/libucx/lib/libucs.so.0(ucs_handle_error+0x294) [0x7f25c9e032f4]
             3  /opt/blockxfer/natives/ucx/libucx/lib/libucp.so.0(+0x6c312) [0x7f25c9cd4312]
             4  /opt/blockxfer/natives/ucx/libucx/lib/libuct.so.0(+0x20f1f) [0x7f25c9d84f1f]
             7  /opt/blockxfer/natives/ucx/libucx/lib/libuct.so.0(uct_tcp_iface_progress+0x6b) [0x7f25c9d8759b]
             8  /opt/blockxfer/natives/ucx/libucx/lib/libucp.so.0(ucp_worker_progress+0x5a) [0x7f25c9cb73aa]
            =================================
            #  SIGSEGV (0xb) at pc=0x00007f25cc85350f, pid=1, tid=22
            """;

    private static final String OTHER_NATIVE_CRASH = """
            peer t1: target on ucx
            #  SIGSEGV (0xb) at pc=0x00007f00deadbeef, pid=1, tid=31
            # C  [libucp.so.0+0x4a1c0]  ucp_ep_flush_progress+0x40
            """;

    @Test
    void ucxAbortingInAnEmulatedPutsReplyIsRecognisedWithItsLine(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("t2.log");
        PeerLog log = PeerLog.ofContainer(file);
        Files.writeString(file, UCX_EMULATED_PUT_ABORT + PeerLog.END_MARK + "\n");

        assertEquals(Optional.of("[t2:1    :1:22] ucp_request.inl:319  Fatal: unexpected error: Endpoint timeout"),
                log.emulatedRmaAbort());
    }

    @Test
    void soIsTheSameAbortInAGetsReply(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("t2.log");
        PeerLog log = PeerLog.ofContainer(file);
        Files.writeString(file, UCX_EMULATED_GET_ABORT + PeerLog.END_MARK + "\n");

        assertEquals(Optional.of("[t2:1    :1:22] ucp_request.inl:319  Fatal: unexpected error: Endpoint timeout"),
                log.emulatedRmaAbort());
    }

    @Test
    void anyOtherDeathIsNotTakenForIt(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("t1.log");
        PeerLog log = PeerLog.ofContainer(file);
        Files.writeString(file, OTHER_NATIVE_CRASH + PeerLog.END_MARK + "\n");
        assertEquals(Optional.empty(), log.emulatedRmaAbort());

        Path quiet = dir.resolve("t3.log");
        PeerLog ended = PeerLog.ofContainer(quiet);
        Files.writeString(quiet, "peer t3: target on ucx\n" + PeerLog.END_MARK + "\n");
        assertEquals(Optional.empty(), ended.emulatedRmaAbort());

        Path outside = dir.resolve("t4.log");
        PeerLog notInProgress = PeerLog.ofContainer(outside);
        Files.writeString(outside, "[t4:1 :1:22] ucp_request.inl:319  Fatal: unexpected error: Endpoint timeout\n"
                + " 4  libucp.so.0(ucp_ep_close_nbx+0x40)\n" + PeerLog.END_MARK + "\n");
        assertEquals(Optional.empty(), notInProgress.emulatedRmaAbort(), "raised outside the worker's progress");
    }

    @Test
    void onlyWhatThisContainerWroteCounts(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("t2.log");
        Files.writeString(file, UCX_EMULATED_PUT_ABORT + PeerLog.END_MARK + "\n"); // an earlier container's
        PeerLog log = PeerLog.ofContainer(file);
        Files.writeString(file, OTHER_NATIVE_CRASH + PeerLog.END_MARK + "\n", StandardOpenOption.APPEND);

        assertEquals(Optional.empty(), log.emulatedRmaAbort());
        assertFalse(log.text().contains("ucp_put_handler"), log.text());
    }

    @Test
    void theEndingWaitsForTheContainersLastLinesAndQuotesThem(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("t1.log");
        PeerLog log = PeerLog.ofContainer(file);
        Files.writeString(file, "peer t1: target on ucx\n");
        Thread late = Thread.ofPlatform().start(() -> {
            try {
                Thread.sleep(300);
                Files.writeString(file, "last words\n" + PeerLog.END_MARK + "\n", StandardOpenOption.APPEND);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        String ending = log.ending(2);
        late.join();
        assertEquals("last words | " + PeerLog.END_MARK, ending);
        assertTrue(log.ending(12).startsWith("peer t1: target on ucx | "), log.ending(12));
    }

    @Test
    void aCrashIsQuotedByTheLinesThatSayWhereItHappened(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("t2.log");
        PeerLog log = PeerLog.ofContainer(file);
        Files.writeString(file, UCX_EMULATED_PUT_ABORT + "# last line of the report\n" + PeerLog.END_MARK + "\n");

        assertEquals("[t2:1    :1:22] ucp_request.inl:319  Fatal: unexpected error: Endpoint timeout"
                + " | #  SIGSEGV (0xb) at pc=0x00007ffb731e650f, pid=1, tid=22"
                + " | # C  [libc.so.6+0x2650f]  abort+0x170", log.nativeCrash());

        Path quiet = dir.resolve("t3.log");
        PeerLog ended = PeerLog.ofContainer(quiet);
        Files.writeString(quiet, "peer t3: target on ucx\n" + PeerLog.END_MARK + "\n");
        assertEquals("", ended.nativeCrash());
    }
}
