package io.blockxfer.multihost;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * One peer container's output, as {@link PeerContainer} writes it to its log file: what the test
 * quotes when a peer is gone, and the recogniser of the one way a peer is known to die by a defect
 * outside this project ({@link #emulatedRmaAbort}).
 *
 * <p>The file is appended to by every container of that name in the report directory, so only
 * what was written after this object was made (before its container started) counts.
 *
 * <p><b>Thread safety:</b> thread-safe (immutable; reads the file on each call).
 */
final class PeerLog {

    /** Why a peer that died of {@link #emulatedRmaAbort} ends a case as aborted, never as passed or failed. */
    static final String UCX_ABORT_REASON = "(a defect in UCX, not in blockxfer: a failed send of an emulated-RMA"
            + " reply is fatal in ucp_request_send; the multi-host suite's README, rule (d))";

    /** What {@link PeerContainer} writes when the container's output ends. */
    static final String END_MARK = "[container output ended]";

    private static final long END_WAIT_MILLIS = 5_000;

    private final Path file;
    private final boolean endMarked;
    private final long from;

    private PeerLog(Path file, boolean endMarked) {
        this.file = file;
        this.endMarked = endMarked;
        long size;
        try {
            size = Files.exists(file) ? Files.size(file) : 0;
        } catch (IOException e) {
            size = 0;
        }
        this.from = size;
    }

    /** The log of a container about to start: complete once it holds {@link #END_MARK}. */
    static PeerLog ofContainer(Path file) {
        return new PeerLog(file, true);
    }

    /** The log a child process's output is redirected to: complete once the process has exited. */
    static PeerLog ofProcess(Path file) {
        return new PeerLog(file, false);
    }

    /** Everything this container wrote so far. */
    String text() {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
            long length = f.length();
            if (length <= from) {
                return "";
            }
            byte[] bytes = new byte[(int) Math.min(length - from, 4 << 20)];
            f.seek(length - bytes.length);
            f.readFully(bytes);
            return new String(bytes, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    /** Waits (up to 5 s) until a container's output has ended, then returns all of it. */
    String whenEnded() {
        if (!endMarked) {
            return text();
        }
        long end = System.nanoTime() + END_WAIT_MILLIS * 1_000_000;
        String text = text();
        while (!text.contains(END_MARK) && System.nanoTime() - end < 0) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            text = text();
        }
        return text;
    }

    /** The last {@code count} lines of the ended output, joined with {@code " | "}, for a failure message. */
    String ending(int count) {
        List<String> lines = Arrays.stream(whenEnded().split("\n")).filter(l -> !l.isBlank()).toList();
        return String.join(" | ", lines.subList(Math.max(0, lines.size() - count), lines.size()));
    }

    /**
     * The lines of the ended output that say where a native crash happened: UCX's fatal line, the
     * signal and the problematic frame of the JVM's report, joined with {@code " | "}. A failure
     * message quotes them because the report's last lines (all a short ending holds) never do.
     *
     * @return those lines, empty when the output holds none
     */
    String nativeCrash() {
        return whenEnded().lines()
                .filter(l -> l.contains("Fatal:") || l.startsWith("#  SIG") || l.startsWith("# C  [")
                        || l.startsWith("# J  [") || l.startsWith("# V  ["))
                .map(String::strip).collect(java.util.stream.Collectors.joining(" | "));
    }

    /**
     * Whether the ended output shows UCX aborting the process while it answered a peer's
     * message-emulated RMA: {@code ucp_rma_sw_send_cmpl} (after a put, {@code ucp_put_handler}) or
     * the reply of a get ({@code ucp_get_req_handler}) hands a send that failed because the peer is
     * gone to {@code ucp_request_send}, which treats any error but "no resource" as fatal. Its
     * message ({@code ucp_request.inl}, "Fatal: unexpected error") comes from that one place in
     * UCX, and here it must be raised inside {@code ucp_worker_progress}. The handler itself is not
     * required: UCX's backtrace names {@code ucp_put_handler}, but shows the get reply's frame only
     * as an offset into {@code libucp} (inside {@code ucp_get_req_handler}; seen in CI). The
     * sources of UCX 1.18.1 (the UCX backend's), 1.22 and today do it, and so does the library
     * bundled with NIXL 1.5. Over TCP every put and get is emulated.
     *
     * @return the UCX line that says so, when it is that
     */
    Optional<String> emulatedRmaAbort() {
        String text = whenEnded();
        if (!text.contains("ucp_worker_progress")) {
            return Optional.empty();
        }
        return text.lines().filter(l -> l.contains("ucp_request.inl") && l.contains("Fatal: unexpected error"))
                .findFirst().map(String::strip);
    }
}
