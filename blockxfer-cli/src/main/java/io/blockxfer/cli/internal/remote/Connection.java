package io.blockxfer.cli.internal.remote;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.channels.SocketChannel;

/**
 * One accepted or opened bench connection: its channel (for the raw bytes of a stream) and
 * unbuffered data streams over it (for the preamble and frames; unbuffered, so no stream byte is
 * read ahead into a buffer), plus what its preamble said.
 *
 * <p><b>Thread safety:</b> not thread-safe, except {@link #close()}, which may be called from any
 * thread to break a blocked read or write.
 */
final class Connection implements AutoCloseable {

    private final SocketChannel channel;
    private final DataInputStream in;
    private final DataOutputStream out;
    private ControlProtocol.Preamble preamble;
    private long token;

    Connection(SocketChannel channel) throws IOException {
        this.channel = channel;
        Socket socket = channel.socket();
        socket.setTcpNoDelay(true);
        this.in = new DataInputStream(socket.getInputStream());
        this.out = new DataOutputStream(socket.getOutputStream());
    }

    SocketChannel channel() {
        return channel;
    }

    DataInputStream in() {
        return in;
    }

    DataOutputStream out() {
        return out;
    }

    /** Sets how long a read may block (0: for ever). */
    void readTimeout(int millis) throws IOException {
        channel.socket().setSoTimeout(millis);
    }

    ControlProtocol.Preamble preamble() {
        return preamble;
    }

    long token() {
        return token;
    }

    /** Reads the client's preamble (and a stream's token) within {@code millis}. */
    void readPreamble(int millis) throws IOException {
        readTimeout(millis);
        preamble = ControlProtocol.readPreamble(in);
        if (preamble.kind() == ControlProtocol.KIND_STREAM) {
            token = in.readLong();
        }
    }

    /** The other end's address, for logs. */
    String peer() {
        try {
            SocketAddress a = channel.getRemoteAddress();
            return a == null ? "?" : a.toString().replaceFirst("^/", "");
        } catch (IOException e) {
            return "?";
        }
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException ignored) {
            // nothing more to do with it
        }
    }
}
