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
 * abort below is a target's output from a run of {@link InitiatorKillTest} (the UCX backend, over
 * TCP), shortened.
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
    void anyOtherDeathIsNotTakenForIt(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("t1.log");
        PeerLog log = PeerLog.ofContainer(file);
        Files.writeString(file, OTHER_NATIVE_CRASH + PeerLog.END_MARK + "\n");
        assertEquals(Optional.empty(), log.emulatedRmaAbort());

        Path quiet = dir.resolve("t3.log");
        PeerLog ended = PeerLog.ofContainer(quiet);
        Files.writeString(quiet, "peer t3: target on ucx\n" + PeerLog.END_MARK + "\n");
        assertEquals(Optional.empty(), ended.emulatedRmaAbort());
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
}
