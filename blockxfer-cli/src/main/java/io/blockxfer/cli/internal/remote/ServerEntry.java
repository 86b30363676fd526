package io.blockxfer.cli.internal.remote;

import io.blockxfer.cli.internal.HostPort;
import io.blockxfer.cli.internal.JsonOutput;
import io.blockxfer.directory.DirectoryLimits;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;

/**
 * What a bench server publishes about itself in a directory ({@code bench --serve --directory}),
 * and what an initiator ({@code bench --connect --directory}) reads back: the name it is published
 * under, where its control channel listens, and what it serves. Carried as the payload of a
 * {@link io.blockxfer.directory.MemberEntry} (see {@link BenchDirectory}), as one JSON object:
 *
 * <pre>{@code
 * {"type": "bench-server", "protocol": 2, "control": "198.18.0.2:7470", "host": "hostB",
 *  "backends": ["ucx", "nixl"], "authenticated": true}
 * }</pre>
 *
 * <p>Every field is checked for type and range when read ({@link #parse}), as control frames are.
 *
 * <p><b>Thread safety:</b> immutable.
 *
 * @param name the name it is published under: a directory member id
 * @param protocol the bench protocol version it speaks ({@link ControlProtocol#VERSION})
 * @param control where its control channel listens
 * @param host the host name it reports (as in its welcome)
 * @param backends the backends it serves
 * @param authenticated whether it holds a deployment key (its control frames are then authenticated)
 */
public record ServerEntry(String name, int protocol, HostPort control, String host, List<String> backends,
        boolean authenticated) {

    /** The {@code type} of the JSON object. */
    static final String TYPE = "bench-server";
    private static final int MAX_BACKENDS = 64;
    private static final int MAX_NAME = 64;
    private static final int MAX_HOST = 255;

    /**
     * Checks the fields and copies the list.
     *
     * @throws IllegalArgumentException if the name is not a member id, or the port is 0
     */
    public ServerEntry {
        DirectoryLimits.checkMemberId(name);
        Objects.requireNonNull(control, "control");
        Objects.requireNonNull(host, "host");
        backends = List.copyOf(backends);
        if (control.port() == 0) {
            throw new IllegalArgumentException("a published control address needs its port: " + control);
        }
    }

    /** The JSON object, UTF-8. */
    byte[] json() {
        Message m = Message.of(TYPE);
        m.node().put("protocol", protocol).put("control", control.toString()).put("host", host);
        ArrayNode list = m.node().putArray("backends");
        backends.forEach(list::add);
        m.node().put("authenticated", authenticated);
        return JsonOutput.mapper().writeValueAsBytes(m.node());
    }

    /**
     * Reads the JSON object of the server published as {@code name}.
     *
     * @throws ProtocolException naming the field that is missing, of the wrong type or out of range
     */
    static ServerEntry parse(String name, byte[] json) throws ProtocolException {
        Message m = ControlProtocol.parse(json);
        if (!m.type().equals(TYPE)) {
            throw new ProtocolException("not a bench server's entry: its type is '" + m.type() + "'");
        }
        int protocol = m.integer("protocol", 1, 255);
        HostPort control;
        try {
            control = HostPort.parse(m.text("control", MAX_HOST + 8), 0);
        } catch (IllegalArgumentException e) {
            throw new ProtocolException(TYPE + ": field 'control': " + e.getMessage());
        }
        if (control.port() == 0) {
            throw new ProtocolException(TYPE + ": field 'control' has no port: " + control);
        }
        String host = m.text("host", MAX_HOST);
        JsonNode list = m.node().get("backends");
        if (list == null || !list.isArray() || list.size() > MAX_BACKENDS) {
            throw new ProtocolException(TYPE + ": field 'backends' must be an array of at most " + MAX_BACKENDS
                    + " names");
        }
        List<String> backends = new ArrayList<>();
        for (JsonNode b : list) {
            if (!b.isString() || b.stringValue().isEmpty() || b.stringValue().length() > MAX_NAME) {
                throw new ProtocolException(TYPE + ": field 'backends' must hold names of 1 to " + MAX_NAME
                        + " characters");
            }
            backends.add(b.stringValue());
        }
        JsonNode auth = m.node().get("authenticated");
        if (auth == null || !auth.isBoolean()) {
            throw new ProtocolException(TYPE + ": field 'authenticated' must be true or false");
        }
        try {
            return new ServerEntry(name, protocol, control, host, backends, auth.booleanValue());
        } catch (IllegalArgumentException e) {
            throw new ProtocolException(TYPE + ": " + e.getMessage());
        }
    }

    /** {@code NAME (ucx, nixl on hostB at 198.18.0.2:7470)}. */
    String describe() {
        return name + " (" + (backends.isEmpty() ? "nothing" : String.join(", ", backends)) + " on " + host + " at "
                + control + ")";
    }
}
