package io.blockxfer.cli.internal.remote;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.channels.SocketChannel;
import org.jspecify.annotations.Nullable;

/**
 * One accepted or opened bench connection: its channel (for the raw bytes of a stream) and
 * unbuffered data streams over it (for the preamble and frames; unbuffered, so no stream byte is
 * read ahead into a buffer), what its preamble said, and how its frames are authenticated.
 *
 * <p><b>Thread safety:</b> not thread-safe, except {@link #close()}, which may be called from any
 * thread to break a blocked read or write.
 */
final class Connection implements AutoCloseable {

    private final SocketChannel channel;
    private final DataInputStream in;
    private final DataOutputStream out;
    private ControlProtocol.@Nullable Preamble preamble;
    private long token;
    private byte[] proof = new byte[0];
    private SessionAuth auth = SessionAuth.none();

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

    /** The preamble {@link #readPreamble} read. */
    ControlProtocol.Preamble preamble() {
        ControlProtocol.Preamble p = preamble;
        if (p == null) {
            throw new IllegalStateException("the preamble of " + peer() + " has not been read");
        }
        return p;
    }

    long token() {
        return token;
    }

    /** What a stream connection sent after its token to prove the key (empty without a key). */
    byte[] proof() {
        return proof.clone();
    }

    /**
     * Reads the client's preamble (and a stream's token and its proof of {@code proofBytes}) within
     * {@code millis}.
     */
    void readPreamble(int millis, int proofBytes) throws IOException {
        readTimeout(millis);
        preamble = ControlProtocol.readPreamble(in);
        if (preamble.kind() == ControlProtocol.KIND_STREAM) {
            token = in.readLong();
            proof = new byte[proofBytes];
            in.readFully(proof);
        }
    }

    /** How this connection's frames are authenticated from now on. */
    void authenticate(SessionAuth sessionAuth) {
        this.auth = sessionAuth;
    }

    SessionAuth auth() {
        return auth;
    }

    /** Sends one frame, sealed as the connection's {@link #auth()} says. */
    void send(Message m) throws IOException {
        ControlProtocol.writeFrame(out, m.node(), auth);
    }

    /** Receives one frame, its tag checked before it is parsed. */
    Message receive() throws IOException {
        return ControlProtocol.readFrame(in, auth);
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
