package io.blockxfer.directory.etcd;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP forwarder on 127.0.0.1 in front of one etcd member, so a test can cut one client off
 * etcd while the cluster and its other clients go on: {@link #cut()} closes every forwarded
 * connection and closes each new one as soon as it is accepted, {@link #restore()} forwards again.
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
final class TcpProxy implements AutoCloseable {

    private final int targetPort;
    private final ServerSocket server;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile boolean cut;
    private volatile boolean closed;

    /** A proxy to 127.0.0.1:{@code targetPort}, listening on a free port. */
    TcpProxy(int targetPort) {
        this.targetPort = targetPort;
        try {
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Thread.ofPlatform().daemon().name("tcp-proxy-" + server.getLocalPort()).start(this::acceptLoop);
    }

    /** The port the proxy listens on. */
    int port() {
        return server.getLocalPort();
    }

    /** Closes every forwarded connection; connections made from now on are closed at once. */
    void cut() {
        cut = true;
        for (Socket s : open) {
            closeQuietly(s);
        }
    }

    /** Forwards new connections again. */
    void restore() {
        cut = false;
    }

    @Override
    public void close() {
        closed = true;
        cut();
        closeQuietly(server);
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return; // closed
            }
            if (cut) {
                closeQuietly(client);
                continue;
            }
            Socket upstream = new Socket();
            try {
                upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 2000);
            } catch (IOException e) {
                closeQuietly(upstream);
                closeQuietly(client); // the member is down: the client sees the connection close
                continue;
            }
            open.add(client);
            open.add(upstream);
            if (cut) { // cut while connecting
                closeQuietly(client);
                closeQuietly(upstream);
            }
            pump(client, upstream);
            pump(upstream, client);
        }
    }

    private void pump(Socket from, Socket to) {
        Thread.ofPlatform().daemon().name("tcp-proxy-" + server.getLocalPort() + "-pump").start(() -> {
            byte[] buffer = new byte[64 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // one side closed
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                open.remove(from);
                open.remove(to);
            }
        });
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // closing
        }
    }
}
