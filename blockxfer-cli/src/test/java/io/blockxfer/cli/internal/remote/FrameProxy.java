package io.blockxfer.cli.internal.remote;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * A man in the middle of one control connection: passes the client's bytes to the server as they
 * are, and the server's frames to the client through {@link Rewriter}, which may change or replace
 * them. Its own threads end when either side closes.
 */
final class FrameProxy implements AutoCloseable {

    /** Rewrites the server's frame number {@code index} (0 is the challenge), knowing the earlier ones. */
    @FunctionalInterface
    interface Rewriter {
        byte[] rewrite(int index, byte[] body, List<byte[]> earlier);
    }

    private final ServerSocket listener;
    private final InetSocketAddress upstream;
    private final Rewriter rewriter;
    private final List<Socket> sockets = new ArrayList<>();

    FrameProxy(InetSocketAddress upstream, Rewriter rewriter) throws IOException {
        this.listener = new ServerSocket(0, 4, upstream.getAddress());
        this.upstream = upstream;
        this.rewriter = rewriter;
        Thread.ofPlatform().daemon().name("frame-proxy").start(this::serve);
    }

    InetSocketAddress address() {
        return new InetSocketAddress(listener.getInetAddress(), listener.getLocalPort());
    }

    private void serve() {
        try (Socket client = listener.accept(); Socket server = new Socket()) {
            server.connect(upstream, 5_000);
            synchronized (sockets) {
                sockets.add(client);
                sockets.add(server);
            }
            Thread up = Thread.ofPlatform().daemon().name("frame-proxy-up").start(() -> copy(client, server));
            down(new DataInputStream(server.getInputStream()), new DataOutputStream(client.getOutputStream()));
            up.join(5_000);
        } catch (IOException | InterruptedException e) {
            // a side closed; the test sees what its client saw
        }
    }

    private static void copy(Socket from, Socket to) {
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            in.transferTo(out);
            to.shutdownOutput();
        } catch (IOException e) {
            // a side closed
        }
    }

    private void down(DataInputStream in, DataOutputStream out) throws IOException {
        byte[] preamble = new byte[8];
        in.readFully(preamble);
        out.write(preamble);
        List<byte[]> earlier = new ArrayList<>();
        try {
            for (int index = 0;; index++) {
                byte[] body = new byte[in.readInt()];
                in.readFully(body);
                byte[] sent = rewriter.rewrite(index, body, List.copyOf(earlier));
                earlier.add(body);
                out.writeInt(sent.length);
                out.write(sent);
                out.flush();
            }
        } catch (EOFException e) {
            out.close();
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
        synchronized (sockets) {
            for (Socket s : sockets) {
                s.close();
            }
        }
    }
}
