package io.blockxfer.cli.internal.remote;

import io.blockxfer.cli.internal.BlockLayout;
import io.blockxfer.cli.internal.CliException;
import io.blockxfer.cli.internal.HostPort;
import io.blockxfer.cli.internal.JsonOutput;
import io.blockxfer.transport.TransferOp;
import java.util.Base64;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * One control frame: a JSON object with a {@code type}, and strict typed access to its fields. A
 * field that is missing, of the wrong JSON type or out of range is a {@link ProtocolException}
 * naming it, so nothing from the network is used unchecked.
 *
 * <p><b>Thread safety:</b> not thread-safe (a mutable JSON tree); one thread builds or reads it.
 */
public final class Message {

    private final ObjectNode node;

    Message(ObjectNode node) {
        this.node = node;
    }

    /** A new message of {@code type}; add fields with {@link #node()}. */
    public static Message of(String type) {
        ObjectNode n = JsonOutput.mapper().createObjectNode();
        n.put("type", type);
        return new Message(n);
    }

    /** An {@code error} frame: {@code message} (or a placeholder), and {@code detail} when there is one. */
    public static Message error(@Nullable String message, @Nullable String detail) {
        Message m = of("error");
        m.node().put("message", Objects.requireNonNullElse(message, "(no message)"));
        if (detail != null) {
            m.node().put("detail", detail);
        }
        return m;
    }

    /**
     * For an {@code error} frame of the bench server at {@code server}: "the bench server at
     * SERVER {@code saying}: its message" as a failure, the frame's detail as its detail.
     */
    CliException failure(HostPort server, String saying) {
        CliException e = new CliException("the bench server at " + server + " " + saying + ": "
                + optionalText("message", "no reason given"));
        return optionalText("detail").map(e::withDetail).orElse(e);
    }

    /** The message's type. */
    public String type() {
        return node.path("type").asString();
    }

    /** The JSON object, to add fields to. */
    public ObjectNode node() {
        return node;
    }

    /** The string field {@code name}, 1 to {@code maxLength} characters. */
    public String text(String name, int maxLength) throws ProtocolException {
        JsonNode v = node.get(name);
        if (v == null || !v.isString()) {
            throw new ProtocolException(type() + ": field '" + name + "' must be a string");
        }
        String s = v.stringValue();
        if (s.isEmpty() || s.length() > maxLength) {
            throw new ProtocolException(type() + ": field '" + name + "' must have 1 to " + maxLength + " characters");
        }
        return s;
    }

    /** The string field {@code name} if present and a string, else {@code fallback}. */
    public String optionalText(String name, String fallback) {
        return optionalText(name).orElse(fallback);
    }

    /** The string field {@code name} if present and a string. */
    public Optional<String> optionalText(String name) {
        JsonNode v = node.get(name);
        return v != null && v.isString() ? Optional.of(v.stringValue()) : Optional.empty();
    }

    /** The integral field {@code name}, within {@code [min, max]}. */
    public long number(String name, long min, long max) throws ProtocolException {
        JsonNode v = node.get(name);
        if (v == null || !v.isIntegralNumber() || !v.canConvertToLong()) {
            throw new ProtocolException(type() + ": field '" + name + "' must be an integer");
        }
        long n = v.longValue();
        if (n < min || n > max) {
            throw new ProtocolException(type() + ": field '" + name + "' is " + n + ", outside " + min + ".." + max);
        }
        return n;
    }

    /** The integral field {@code name} as an int within {@code [min, max]}. */
    public int integer(String name, int min, int max) throws ProtocolException {
        return (int) number(name, min, max);
    }

    /** The base64 field {@code name}, decoding to at most {@code maxBytes}. */
    public byte[] bytes(String name, int maxBytes) throws ProtocolException {
        String s = text(name, (maxBytes + 2) / 3 * 4);
        try {
            return Base64.getDecoder().decode(s);
        } catch (IllegalArgumentException e) {
            throw new ProtocolException(type() + ": field '" + name + "' is not base64");
        }
    }

    /** The field {@code op}: {@code write} or {@code read}. */
    public TransferOp op() throws ProtocolException {
        return switch (text("op", 5)) {
            case "write" -> TransferOp.WRITE;
            case "read" -> TransferOp.READ;
            default -> throw new ProtocolException(type() + ": field 'op' must be write or read");
        };
    }

    /** The field {@code layout}: a {@link BlockLayout} name in lower case. */
    public BlockLayout layout() throws ProtocolException {
        String s = text("layout", 16);
        for (BlockLayout l : BlockLayout.values()) {
            if (l.name().toLowerCase(Locale.ROOT).equals(s)) {
                return l;
            }
        }
        throw new ProtocolException(type() + ": unknown layout '" + s + "'");
    }

    /** Sets a base64 field. */
    public Message putBytes(String name, byte[] value) {
        node.put(name, Base64.getEncoder().encodeToString(value));
        return this;
    }

    @Override
    public String toString() {
        return node.toString();
    }
}
