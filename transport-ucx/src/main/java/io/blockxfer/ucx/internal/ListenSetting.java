package io.blockxfer.ucx.internal;

import io.blockxfer.ucx.UcxOptions;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The value of {@link UcxOptions#LISTEN}: whether the transport listens for peers on other hosts,
 * and where: {@code auto}, {@code off}, or {@code [HOST][:PORT]} (an IPv6 host in brackets).
 *
 * <p><b>Thread safety:</b> immutable.
 *
 * @param enabled whether to listen at all
 * @param host the address to bind, or null to choose one from the transport's TCP interfaces
 * @param port the port to bind, 0 for one the system picks
 */
record ListenSetting(boolean enabled, @Nullable String host, int port) {

    /** Listens where the transport's TCP interfaces are, at a port the system picks. */
    static final ListenSetting AUTO = new ListenSetting(true, null, 0);
    /** Does not listen. */
    static final ListenSetting OFF = new ListenSetting(false, null, 0);

    /**
     * Parses a value of {@link UcxOptions#LISTEN}.
     *
     * @throws IllegalArgumentException naming the option and the problem
     */
    static ListenSetting parse(String value) {
        String v = value.strip();
        switch (v.toLowerCase(Locale.ROOT)) {
            case "auto" -> {
                return AUTO;
            }
            case "off", "no", "n", "false" -> {
                return OFF;
            }
            default -> {
                // handled below
            }
        }
        String host = v;
        String port = null;
        if (v.startsWith("[")) {
            int close = v.indexOf(']');
            if (close < 0) {
                throw bad(value, "an IPv6 host is written in brackets, e.g. [fd00::1]:7800");
            }
            host = v.substring(1, close);
            String rest = v.substring(close + 1);
            if (!rest.isEmpty()) {
                if (!rest.startsWith(":")) {
                    throw bad(value, "a port follows the host after a colon");
                }
                port = rest.substring(1);
            }
        } else {
            int colon = v.lastIndexOf(':');
            if (colon >= 0) {
                if (v.indexOf(':') != colon) {
                    throw bad(value, "an IPv6 host is written in brackets, e.g. [fd00::1]:7800");
                }
                host = v.substring(0, colon);
                port = v.substring(colon + 1);
            }
        }
        int p = 0;
        if (port != null) {
            try {
                p = Integer.parseInt(port);
            } catch (NumberFormatException e) {
                throw bad(value, "the port is not a number");
            }
            if (p < 0 || p > 65535) {
                throw bad(value, "the port must be 0 (any) to 65535");
            }
        }
        return new ListenSetting(true, host.isEmpty() ? null : host, p);
    }

    private static IllegalArgumentException bad(String value, String why) {
        return new IllegalArgumentException("option " + UcxOptions.LISTEN + "='" + value + "': " + why + " (use auto,"
                + " off or [HOST][:PORT])");
    }

    @Override
    public String toString() {
        if (!enabled) {
            return "off";
        }
        if (host == null && port == 0) {
            return "auto";
        }
        String h = host == null ? "" : host.indexOf(':') >= 0 ? "[" + host + "]" : host;
        return h + (port == 0 ? "" : ":" + port);
    }
}
