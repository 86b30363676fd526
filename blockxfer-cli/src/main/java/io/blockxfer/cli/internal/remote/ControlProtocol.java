package io.blockxfer.cli.internal.remote;

import io.blockxfer.cli.internal.JsonOutput;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The wire format of the bench control channel between {@code bench --connect} (the initiator) and
 * {@code bench --serve} (the target host), version {@value #VERSION}.
 *
 * <p>Every connection starts with a preamble: the 7 ASCII bytes {@code BXBENCH}, one byte of
 * protocol version and one byte of kind, {@link #KIND_CONTROL} or {@link #KIND_STREAM}. A stream
 * connection then sends the 8-byte token its session was given (and, with a deployment key, the
 * 32-byte proof of {@link SessionAuth}) and carries raw block bytes (the TCP ceiling). A control
 * connection is answered with the server's own 8-byte preamble (magic and version) and then
 * carries frames both ways: a 4-byte big-endian length (1 to {@value #MAX_FRAME_BYTES}) and that
 * many bytes of body. The preamble and the plain {@code error} frame keep this form in every
 * version, so a server can always tell a client of another version why it refuses it.
 *
 * <p>The server's first frame is always plain: {@code challenge {nonce, auth, keyIds}}, its nonce
 * for this connection (base64 of 32 bytes), {@code auth} {@code "hmac-sha256"} when it holds a
 * deployment key and {@code "none"} when not, and the ids of the keys it accepts (ids are not
 * secret). From then on, with a key, every body is authenticated as {@link SessionAuth} describes
 * and its tag checked before anything is parsed; without one, a body is the JSON itself. A frame's
 * JSON is one UTF-8 object with a string field {@code type}.
 *
 * <p>Requests and their answers (every request may also be answered with
 * {@code {"type":"error","message":...,"detail":...}}):
 * <ul>
 *   <li>{@code hello {client, version}} &rarr; {@code welcome {server, cpus, maxMemoryBytes,
 *       descriptors, backends: [{name, served, cause}]}}; the client's first frame. A client that
 *       will not go on (a server without a key when it has one) may send a plain {@code error}
 *       instead;</li>
 *   <li>{@code open {backend, numBlocks, blockBytes, progress}} &rarr; {@code opened {target,
 *       descriptor}}: a target transport, its descriptor in base64 (see {@link DescriptorCodec});</li>
 *   <li>{@code fill {target, block, seed}} &rarr; {@code ok}; {@code check {target, block, seed}}
 *       &rarr; {@code mismatch {at}}: a block pattern written or checked on the target;</li>
 *   <li>{@code memcpy {target, op, window, batch, layout, nanos}} &rarr; {@code rate {bytes,
 *       nanos}}: memcpy of the plan's blocks on the server;</li>
 *   <li>{@code stream {target, op, window, batch, layout, nanos}} &rarr; {@code ready {token}},
 *       then one stream connection, then {@code streamed {bytes}}: the TCP ceiling, pushed by the
 *       client for {@code write} and by the server for {@code read};</li>
 *   <li>{@code clock} &rarr; {@code clock {nanos, bootId}}: the server's {@code System.nanoTime()},
 *       read last, and its kernel's boot id where it has one (see {@link HostClocks});</li>
 *   <li>{@code notify-arm {target, tag, offsetNanos, taker}} &rarr; {@code ok}: the target counts and times
 *       from now on the notifications stamped with {@code tag}, by its clock less {@code offsetNanos},
 *       its thread taking them in the style {@code taker} ({@code wait}, the default, or {@code spin});
 *       {@code notify-disarm {target, expected, limitMillis}} &rarr; {@code tally {tally}}: once
 *       {@code expected} arrived or the limit (at most 60 s) passed, what arrived (base64 of a
 *       {@code NotifyTally}). A server that answers these says {@code notify: true} in its
 *       {@code welcome}, and {@code notifications} for each backend that carries them;</li>
 *   <li>{@code close {target}}, {@code ping}, {@code bye} &rarr; {@code ok}; {@code bye} ends the
 *       session.</li>
 * </ul>
 *
 * <p><b>Thread safety:</b> stateless; a stream must be used by one thread at a time.
 */
public final class ControlProtocol {

    /** The protocol version this build speaks. */
    public static final int VERSION = 2;
    /** Preamble kind of a control connection. */
    public static final int KIND_CONTROL = 1;
    /** Preamble kind of a stream connection (the TCP ceiling). */
    public static final int KIND_STREAM = 2;
    /** The port {@code --listen} and {@code --connect} use when none is given. */
    public static final int DEFAULT_PORT = 7470;
    /** The largest frame either side accepts. */
    public static final int MAX_FRAME_BYTES = 1 << 20;

    private static final byte[] MAGIC = "BXBENCH".getBytes(StandardCharsets.US_ASCII);

    private ControlProtocol() {
    }

    /**
     * A preamble as read.
     *
     * <p><b>Thread safety:</b> immutable.
     *
     * @param version the sender's protocol version
     * @param kind {@link #KIND_CONTROL} or {@link #KIND_STREAM}
     */
    public record Preamble(int version, int kind) {
    }

    /** Writes a client's preamble. */
    public static void writePreamble(DataOutputStream out, int kind) throws IOException {
        out.write(MAGIC);
        out.write(new byte[] {(byte) VERSION, (byte) kind});
        out.flush();
    }

    /** Reads a client's preamble. */
    public static Preamble readPreamble(DataInputStream in) throws IOException {
        byte[] b = readMagic(in, 2, "not a blockxfer bench client (bad preamble)");
        int kind = b[MAGIC.length + 1] & 0xff;
        if (kind != KIND_CONTROL && kind != KIND_STREAM) {
            throw new ProtocolException("unknown connection kind " + kind);
        }
        return new Preamble(b[MAGIC.length] & 0xff, kind);
    }

    /** Writes the server's answer to a control preamble. */
    public static void writeServerPreamble(DataOutputStream out) throws IOException {
        out.write(MAGIC);
        out.write(VERSION);
        out.flush();
    }

    /** Reads the server's answer to a control preamble and returns its version. */
    public static int readServerPreamble(DataInputStream in) throws IOException {
        return readMagic(in, 1, "the other end is not a blockxfer bench server")[MAGIC.length] & 0xff;
    }

    /** The magic and the {@code extra} bytes after it; {@code notOurs} when the magic is wrong. */
    private static byte[] readMagic(DataInputStream in, int extra, String notOurs) throws IOException {
        byte[] b = readExactly(in, MAGIC.length + extra, "preamble");
        if (!Arrays.equals(b, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
            throw new ProtocolException(notOurs);
        }
        return b;
    }

    /** Writes one plain frame. */
    public static void writeFrame(DataOutputStream out, ObjectNode message) throws IOException {
        writeFrame(out, message, SessionAuth.none());
    }

    /** Writes one frame, sealed by {@code auth}. */
    static void writeFrame(DataOutputStream out, ObjectNode message, SessionAuth auth) throws IOException {
        byte[] body = auth.seal(JsonOutput.mapper().writeValueAsBytes(message));
        if (body.length > MAX_FRAME_BYTES) {
            throw new ProtocolException("frame of " + body.length + " bytes is over the limit of " + MAX_FRAME_BYTES);
        }
        out.writeInt(body.length);
        out.write(body);
        out.flush();
    }

    /**
     * Reads one plain frame.
     *
     * @throws EOFException when the connection closed before a frame began
     * @throws ProtocolException when the frame is too long, not JSON, or has no string {@code type}
     */
    public static Message readFrame(DataInputStream in) throws IOException {
        return parse(readBody(in));
    }

    /**
     * Reads one frame and opens it with {@code auth}: its tag is checked before its JSON is parsed.
     *
     * @throws UnauthenticatedFrameException when its tag does not verify
     */
    static Message readFrame(DataInputStream in, SessionAuth auth) throws IOException {
        return parse(auth.open(readBody(in)));
    }

    /** Reads the body of one frame, unparsed. */
    static byte[] readBody(DataInputStream in) throws IOException {
        int length = in.readInt();
        if (length <= 0 || length > MAX_FRAME_BYTES) {
            throw new ProtocolException("frame length " + length + " is outside 1.." + MAX_FRAME_BYTES);
        }
        return readExactly(in, length, "frame");
    }

    /**
     * Parses a frame's JSON.
     *
     * @throws ProtocolException when it is not JSON or has no string {@code type}
     */
    static Message parse(byte[] json) throws ProtocolException {
        JsonNode node;
        try {
            node = JsonOutput.mapper().readTree(json);
        } catch (JacksonException e) {
            throw new ProtocolException("frame is not JSON: " + e.getOriginalMessage());
        }
        if (node == null || !node.isObject() || !node.path("type").isString()) {
            throw new ProtocolException("frame is not a JSON object with a string 'type'");
        }
        return new Message((ObjectNode) node);
    }

    private static byte[] readExactly(DataInputStream in, int n, String what) throws IOException {
        byte[] b = new byte[n];
        try {
            in.readFully(b);
        } catch (EOFException e) {
            throw new ProtocolException("connection closed in the middle of a " + what);
        }
        return b;
    }
}
