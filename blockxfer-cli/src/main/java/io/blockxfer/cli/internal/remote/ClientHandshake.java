package io.blockxfer.cli.internal.remote;

import io.blockxfer.cli.internal.CliException;
import io.blockxfer.cli.internal.HostPort;
import io.blockxfer.cli.internal.KeyFile;
import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Opens a session with a bench server, as the initiator: preamble, the server's challenge, the
 * check that both sides hold a key or neither does (and the same key id), the hello
 * (authenticated with the deployment key when there is one) and the server's welcome, verified
 * before it is read. Every way this can fail is one {@link CliException} (exit status 1) whose
 * message names the problem in one line, with the long form as its detail.
 *
 * <p><b>Thread safety:</b> stateless.
 */
final class ClientHandshake {

    static final int CONNECT_MILLIS = 10_000;
    private static final int WELCOME_MILLIS = 60_000;

    private ClientHandshake() {
    }

    /**
     * A session as opened: its connection, authenticated from now on, and the server's welcome.
     *
     * <p><b>Thread safety:</b> immutable; the connection is not thread-safe.
     *
     * @param connection the control connection
     * @param welcome the server's welcome
     */
    record Session(Connection connection, Message welcome) {
    }

    /** Connects to the server at {@code address} and opens a session, keyed with {@code keys} if present. */
    static Session open(HostPort address, Optional<KeyFile> keys) {
        if (address.resolve().isUnresolved()) {
            throw new CliException("cannot resolve the host of " + address);
        }
        Connection c = null;
        try {
            SocketChannel ch = SocketChannel.open();
            try {
                ch.socket().connect(address.resolve(), CONNECT_MILLIS);
                c = new Connection(ch);
            } catch (IOException | RuntimeException e) {
                ch.close();
                throw e;
            }
            c.readTimeout(CONNECT_MILLIS);
            ControlProtocol.writePreamble(c.out(), ControlProtocol.KIND_CONTROL);
            int version = ControlProtocol.readServerPreamble(c.in());
            if (version != ControlProtocol.VERSION) {
                Message reply = ControlProtocol.readFrame(c.in());
                throw new CliException("the bench server at " + address + " refused the session: "
                        + reply.optionalText("message", "it speaks bench protocol " + version + ", this side "
                        + ControlProtocol.VERSION));
            }
            Challenge challenge = Challenge.from(ControlProtocol.readFrame(c.in()));
            SessionAuth auth = agree(address, keys, challenge, c);
            Message hello = Message.of("hello");
            hello.node().put("client", "pid " + ProcessHandle.current().pid()).put("version", ControlProtocol.VERSION);
            c.authenticate(auth);
            c.send(hello);
            c.readTimeout(WELCOME_MILLIS);
            Message welcome = welcome(address, keys, c);
            return new Session(c, welcome);
        } catch (IOException e) {
            close(c);
            throw new CliException("could not open a bench session with " + address + ": " + describe(e));
        } catch (RuntimeException e) {
            close(c);
            throw e;
        }
    }

    /** How the session's frames are authenticated, once both sides agree on having a key. */
    private static SessionAuth agree(HostPort address, Optional<KeyFile> keys, Challenge challenge, Connection c)
            throws IOException {
        if (keys.isEmpty()) {
            if (challenge.keyed()) {
                throw new CliException("the bench server at " + address + " requires a deployment key: give this"
                        + " side its key file with --key-file or " + KeyFile.ENVIRONMENT).withDetail("the server"
                        + " accepts the key ids " + challenge.keyIds() + "; this side has no key file");
            }
            return SessionAuth.none();
        }
        KeyFile k = keys.get();
        if (!challenge.keyed()) {
            ControlProtocol.writeFrame(c.out(), Message.error("this client holds a deployment key and will not use a"
                    + " server without one", null).node());
            throw new CliException("the bench server at " + address + " has no deployment key, but this side has"
                    + " one: start both sides with the same key file, or neither").withDetail("this side: " + k
                    + "; the server authenticates nothing, so anyone who can reach its port can drive it");
        }
        if (!challenge.keyIds().contains(k.signingKeyId())) {
            throw new CliException("the bench server at " + address + " does not hold this side's key '"
                    + k.signingKeyId() + "' (it accepts " + String.join(", ", challenge.keyIds()) + "): use the same"
                    + " key file on both hosts").withDetail("this side: " + k);
        }
        return SessionAuth.client(k, challenge.nonce());
    }

    /** The server's answer to the hello: a welcome, verified; or why the server refused. */
    private static Message welcome(HostPort address, Optional<KeyFile> keys, Connection c) throws IOException {
        byte[] body = ControlProtocol.readBody(c.in());
        Message reply;
        try {
            reply = ControlProtocol.parse(c.auth().open(body));
        } catch (UnauthenticatedFrameException e) {
            throw unauthenticatedAnswer(address, keys.orElseThrow(), body, e);
        }
        if (reply.type().equals("error")) {
            throw reply.failure(address, "refused the session");
        }
        if (!reply.type().equals("welcome")) {
            throw new ProtocolException("expected 'welcome', got '" + reply.type() + "'");
        }
        return reply;
    }

    /**
     * A keyed answer that does not verify: a server that rejected our key says why in a plain
     * error frame (it cannot seal one for a key it does not hold); anything else is not the server
     * we think. The plain text is only reported, never acted on.
     */
    private static CliException unauthenticatedAnswer(HostPort address, KeyFile keys, byte[] body,
            UnauthenticatedFrameException e) {
        Message plain = null;
        try {
            plain = ControlProtocol.parse(body);
        } catch (ProtocolException notPlain) {
            // not a plain frame either
        }
        if (plain != null && plain.type().equals("error")) {
            return new CliException("the bench server at " + address + " rejected this side's key '"
                    + keys.signingKeyId() + "': it holds a different key under that id; use the same key file on"
                    + " both hosts").withDetail("this side: " + keys + "; the server said (unauthenticated): "
                    + plain.optionalText("message", "") + " " + plain.optionalText("detail", ""));
        }
        return new CliException("the answer of the bench server at " + address + " is not authenticated with this"
                + " side's key '" + keys.signingKeyId() + "': it is not the server you meant, or something on the way"
                + " changes frames").withDetail(e.getMessage());
    }

    static String describe(IOException e) {
        String m = e.getMessage();
        return m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
    }

    private static void close(@Nullable Connection c) {
        if (c != null) {
            c.close();
        }
    }
}
