package io.blockxfer.multihost;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * A line-based control connection over a Unix-domain socket: UTF-8 lines ending in {@code '\n'}.
 * The suite puts the socket in a directory bind-mounted into a peer container, so the control
 * channel crosses the container boundary through the file system and survives any cut of the
 * container's network. The peer program exits when the connection closes, so a test JVM that dies
 * leaves no peer running.
 *
 * <p><b>Thread safety:</b> {@link #send} is thread-safe; {@link #readLine} is for one reader thread
 * at a time; a send and a read may run concurrently. {@link #close} may be called from any thread.
 */
public final class LineChannel implements AutoCloseable {

    private static final int MAX_LINE = 1 << 20;

    private final SocketChannel channel;
    private final Object writeLock = new Object();
    private final ByteBuffer in = ByteBuffer.allocate(64 * 1024);
    private byte[] line = new byte[256];

    private LineChannel(SocketChannel channel) {
        this.channel = channel;
        in.flip();
    }

    /** Connects to the socket at {@code path}. */
    public static LineChannel connect(Path path) throws IOException {
        SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            ch.connect(UnixDomainSocketAddress.of(path));
        } catch (IOException e) {
            ch.close();
            throw e;
        }
        return new LineChannel(ch);
    }

    /**
     * Accepts one connection on {@code server}, giving up after {@code timeout} or as soon as
     * {@code stillWaiting} turns false.
     *
     * @throws IOException if nothing connected in time
     */
    public static LineChannel accept(ServerSocketChannel server, Duration timeout, BooleanSupplier stillWaiting)
            throws IOException {
        Objects.requireNonNull(stillWaiting, "stillWaiting");
        server.configureBlocking(false);
        long end = System.nanoTime() + timeout.toNanos();
        while (true) {
            SocketChannel ch = server.accept();
            if (ch != null) {
                ch.configureBlocking(true);
                return new LineChannel(ch);
            }
            if (System.nanoTime() - end > 0 || !stillWaiting.getAsBoolean()) {
                throw new IOException("nobody connected to " + server.getLocalAddress() + " within "
                        + timeout.toMillis() + " ms");
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for a connection", e);
            }
        }
    }

    /** Opens a listening Unix-domain socket at {@code path}. */
    public static ServerSocketChannel listen(Path path) throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(path));
        return server;
    }

    /** Sends one line; {@code text} must not contain a line break. */
    public void send(String text) throws IOException {
        if (text.indexOf('\n') >= 0) {
            throw new IllegalArgumentException("a control line must not contain a line break: " + text);
        }
        ByteBuffer out = StandardCharsets.UTF_8.encode(text + "\n");
        synchronized (writeLock) {
            while (out.hasRemaining()) {
                channel.write(out);
            }
        }
    }

    /** The next line without its line break, or {@code null} at the end of the stream. */
    public @Nullable String readLine() throws IOException {
        int n = 0;
        while (true) {
            while (in.hasRemaining()) {
                byte b = in.get();
                if (b == '\n') {
                    return new String(line, 0, n, StandardCharsets.UTF_8);
                }
                if (n == line.length) {
                    if (n >= MAX_LINE) {
                        throw new IOException("control line longer than " + MAX_LINE + " bytes");
                    }
                    line = java.util.Arrays.copyOf(line, n * 2);
                }
                line[n++] = b;
            }
            in.clear();
            int read = channel.read(in);
            in.flip();
            if (read < 0) {
                return n == 0 ? null : new String(line, 0, n, StandardCharsets.UTF_8);
            }
        }
    }

    /** Whether the connection is still open on this side. */
    public boolean isOpen() {
        return channel.isOpen();
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException ignored) {
            // nothing left to release
        }
    }
}
