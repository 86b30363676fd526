package io.blockxfer.cli.internal.remote;

import io.blockxfer.cli.internal.CliException;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The target side of the two-host bench ({@code blockxfer bench --serve}): listens on one TCP port
 * and serves initiators one after another, each in a {@link ServerSession} that opens the targets
 * it asks for and closes them when it ends. An initiator that connects while another is being
 * served waits until that session ends. A stream connection (the TCP ceiling) arrives on the same
 * port during a session and is handed to it. With a deployment key ({@link ServerConfig#keys()}),
 * a session goes on only when the initiator's first frame proves the key, every later frame is
 * checked ({@link SessionAuth}), a stream connection must prove the key too, and the targets'
 * transports sign their descriptors. {@link #stop()} (from a shutdown hook on Ctrl-C or
 * SIGTERM) closes the listening socket and the current connection; the serving thread then closes
 * the session's transports and frees their memory before {@link #serve()} returns.
 *
 * <p><b>Thread safety:</b> {@link #serve()} runs on one thread; {@link #stop()} and
 * {@link #awaitStopped} may be called from any thread.
 */
public final class BenchServer implements AutoCloseable {

    private static final int PREAMBLE_MILLIS = 10_000;

    private final ServerSocketChannel listener;
    private final ServerConfig config;
    private final PrintWriter log;
    private final Queue<Connection> pending = new ArrayDeque<>();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile boolean stopping;
    private volatile @Nullable ServerSession current;
    private int sessions;

    private BenchServer(ServerSocketChannel listener, ServerConfig config, PrintWriter log) {
        this.listener = listener;
        this.config = config;
        this.log = log;
    }

    /**
     * Listens on {@code address} (port 0 picks a free one).
     *
     * @throws CliException if the address cannot be bound
     */
    public static BenchServer bind(InetSocketAddress address, ServerConfig config, PrintWriter log) {
        try {
            ServerSocketChannel ch = ServerSocketChannel.open();
            try {
                ch.bind(address, 16);
            } catch (IOException | RuntimeException e) {
                ch.close();
                throw e;
            }
            return new BenchServer(ch, config, log);
        } catch (IOException | RuntimeException e) {
            throw new CliException("could not listen on " + address.getHostString() + ":" + address.getPort() + ": "
                    + e.getMessage());
        }
    }

    /** The address it listens on. */
    public InetSocketAddress address() {
        try {
            return (InetSocketAddress) listener.getLocalAddress();
        } catch (IOException e) {
            throw new IllegalStateException("the listening socket is closed", e);
        }
    }

    ServerConfig config() {
        return config;
    }

    PrintWriter log() {
        return log;
    }

    boolean stopping() {
        return stopping;
    }

    /**
     * Serves initiators one after another until {@link #stop()}.
     *
     * @return how many sessions were served
     */
    public int serve() {
        try {
            while (!stopping) {
                Connection c = pending.poll();
                if (c == null) {
                    c = accept(0);
                }
                if (c == null) {
                    continue;
                }
                if (c.preamble().kind() != ControlProtocol.KIND_CONTROL) {
                    say("ignoring a stream connection from " + c.peer() + " outside a session");
                    c.close();
                    continue;
                }
                sessions++;
                try (ServerSession session = new ServerSession(this, c, sessions)) {
                    current = session;
                    if (!stopping) {
                        session.run();
                    }
                } finally {
                    current = null;
                }
            }
        } finally {
            Connection c;
            while ((c = pending.poll()) != null) {
                c.close();
            }
            close();
            say("stopped after " + sessions + " session" + (sessions == 1 ? "" : "s"));
            stopped.countDown();
        }
        return sessions;
    }

    /**
     * Waits up to {@code millis} (0: for ever) for the next connection and reads its preamble.
     *
     * @return the connection, or null when the wait timed out, the server is stopping, or the
     *     connection was not a bench client (it is closed and logged)
     */
    private @Nullable Connection accept(int millis) {
        Socket socket;
        try {
            listener.socket().setSoTimeout(millis);
            socket = listener.socket().accept();
        } catch (SocketTimeoutException e) {
            return null;
        } catch (ClosedChannelException e) {
            stopping = true;
            return null;
        } catch (IOException e) {
            if (!stopping) {
                say("accept failed: " + e.getMessage());
            }
            return null;
        }
        Connection c;
        try {
            c = new Connection(socket.getChannel());
        } catch (IOException e) {
            closeQuietly(socket);
            return null;
        }
        try {
            c.readPreamble(PREAMBLE_MILLIS, config.streamProofBytes());
            return c;
        } catch (IOException e) {
            say("dropped a connection from " + c.peer() + ": " + e.getMessage());
            c.close();
            return null;
        }
    }

    /**
     * Waits (bounded by {@code timeout}) for the stream connection that carries {@code token} and
     * {@code proof} (empty without a key); control connections that arrive meanwhile wait their
     * turn, anything else is dropped.
     */
    Connection acceptStream(long token, byte[] proof, Duration timeout) throws IOException {
        long end = System.nanoTime() + timeout.toNanos();
        while (!stopping) {
            long left = end - System.nanoTime();
            if (left <= 0) {
                break;
            }
            Connection c = accept((int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            if (c == null) {
                continue;
            }
            if (c.preamble().kind() == ControlProtocol.KIND_CONTROL) {
                pending.add(c);
            } else if (c.token() == token && MessageDigest.isEqual(c.proof(), proof)) {
                return c;
            } else {
                say("dropped a stream connection from " + c.peer() + " with a wrong token"
                        + (proof.length > 0 ? " or proof of the key" : ""));
                c.close();
            }
        }
        throw new ProtocolException(stopping ? "the server is stopping"
                : "the stream connection did not arrive within " + timeout.toSeconds() + " s");
    }

    /** Stops serving: closes the listening socket and the current connection; idempotent. */
    public void stop() {
        stopping = true;
        close();
        ServerSession s = current;
        if (s != null) {
            s.abort();
        }
    }

    /** Waits until {@link #serve()} has cleaned up, at most {@code timeout}; whether it has. */
    public boolean awaitStopped(Duration timeout) {
        try {
            return stopped.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    void say(String line) {
        synchronized (log) {
            log.println("bench server: " + line);
            log.flush();
        }
    }

    /** Closes the listening socket. */
    @Override
    public void close() {
        try {
            listener.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }
}
