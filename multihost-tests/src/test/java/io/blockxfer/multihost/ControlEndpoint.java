package io.blockxfer.multihost;

import java.io.IOException;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * The test's end of one peer's control channel: a Unix-domain socket in a directory that is
 * bind-mounted into the peer's container, which the peer program connects to. It keeps every line
 * the peer sent, in order, so that tests can wait for events and replies.
 *
 * <p><b>Thread safety:</b> thread-safe; {@link #request} calls are serialised.
 */
final class ControlEndpoint implements AutoCloseable {

    /** The socket's path inside the container. */
    static final String CONTAINER_SOCKET = "/ctl/control.sock";

    private static final int OUTPUT_LINES = 12;

    private final String name;
    private final PeerLog output;
    private final ServerSocketChannel server;
    private final List<String> lines = new ArrayList<>();
    private final List<String> transcript = new ArrayList<>();
    private volatile LineChannel channel;
    private boolean ended;

    /**
     * @param output the peer's output, whose last lines a failure quotes when the peer is gone
     */
    ControlEndpoint(String name, Path dir, PeerLog output) throws IOException {
        this.name = name;
        this.output = output;
        Files.createDirectories(dir);
        this.server = LineChannel.listen(dir.resolve("control.sock"));
    }

    /** Waits for the peer to connect, then reads its lines on a daemon thread. */
    void accept(Duration timeout, BooleanSupplier peerAlive) throws IOException {
        LineChannel ch = LineChannel.accept(server, timeout, peerAlive);
        channel = ch;
        Thread.ofPlatform().daemon().name("control-" + name).start(() -> {
            try {
                String line;
                while ((line = ch.readLine()) != null) {
                    synchronized (lines) {
                        lines.add(line);
                        transcript.add(java.time.LocalTime.now(java.time.ZoneId.systemDefault()) + " < " + line);
                        lines.notifyAll();
                    }
                }
            } catch (IOException ignored) {
                // the peer is gone; waiters see the end below
            }
            synchronized (lines) {
                ended = true;
                lines.notifyAll();
            }
        });
    }

    /** Every line received so far. */
    List<String> lines() {
        synchronized (lines) {
            return List.copyOf(lines);
        }
    }

    /** Every line sent and received, with the local time it was sent or received. */
    List<String> transcript() {
        synchronized (lines) {
            return List.copyOf(transcript);
        }
    }

    /** Whether the peer closed the channel (it exited or was killed). */
    boolean ended() {
        synchronized (lines) {
            return ended;
        }
    }

    /**
     * The first line at index {@code from} or later that matches, waiting up to {@code timeout}.
     *
     * @throws AssertionError when none comes in time or the channel ends first
     */
    String await(int from, Predicate<String> match, Duration timeout, String what) {
        long end = System.nanoTime() + timeout.toNanos();
        String failure;
        boolean gone;
        synchronized (lines) {
            int i = from;
            while (true) {
                for (; i < lines.size(); i++) {
                    if (match.test(lines.get(i))) {
                        return lines.get(i);
                    }
                }
                long left = end - System.nanoTime();
                if (ended || left <= 0) {
                    gone = ended;
                    failure = name + ": " + (ended ? "control channel ended" : "timed out after "
                            + timeout.toMillis() + " ms") + " waiting for " + what + "; last lines: "
                            + lines.subList(Math.max(0, lines.size() - 8), lines.size());
                    break;
                }
                try {
                    lines.wait(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError(name + ": interrupted waiting for " + what, e);
                }
            }
        }
        // the peer's output is read outside the lock: it may take a moment to end
        throw new AssertionError(gone ? failure + outputEnding() : failure);
    }

    /** The number of lines received so far: an index for {@link #await}. */
    int mark() {
        synchronized (lines) {
            return lines.size();
        }
    }

    /**
     * Sends a command and returns its {@code R OK} reply.
     *
     * @throws AssertionError on {@code R ERR}, a timeout, or a lost channel
     */
    synchronized EventFields request(String command, Duration timeout) {
        int from = mark();
        synchronized (lines) {
            transcript.add(java.time.LocalTime.now(java.time.ZoneId.systemDefault()) + " > " + command);
        }
        try {
            channel.send(command);
        } catch (IOException | RuntimeException e) {
            throw new AssertionError(name + ": could not send " + firstWord(command) + ": " + e + outputEnding(), e);
        }
        String reply = await(from, l -> l.startsWith("R "), timeout, "the reply to " + firstWord(command));
        if (!reply.startsWith("R OK")) {
            throw new AssertionError(name + ": " + firstWord(command) + " failed: " + reply);
        }
        return EventFields.parse(reply);
    }

    /** The peer's last output lines, for the message of a failure that means the peer is gone. */
    private String outputEnding() {
        String crash = output.nativeCrash();
        return "; the peer's output ends: " + output.ending(OUTPUT_LINES)
                + (crash.isEmpty() ? "" : "; where it crashed: " + crash);
    }

    private static String firstWord(String command) {
        int sp = command.indexOf(' ');
        return sp < 0 ? command : command.substring(0, sp);
    }

    @Override
    public void close() {
        LineChannel ch = channel;
        if (ch != null) {
            ch.close();
        }
        try {
            server.close();
        } catch (IOException ignored) {
            // nothing left to release
        }
    }
}
