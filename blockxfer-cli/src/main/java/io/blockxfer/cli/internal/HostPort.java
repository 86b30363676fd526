package io.blockxfer.cli.internal;

import java.net.InetSocketAddress;

/**
 * A {@code HOST:PORT} as given on the command line ({@code --listen}, {@code --connect}): a host
 * name, an IPv4 address or a bracketed IPv6 address, and a port (the default when left out).
 *
 * <p><b>Thread safety:</b> immutable.
 *
 * @param host the host, without brackets
 * @param port 0 to 65535
 */
public record HostPort(String host, int port) {

    /**
     * Parses {@code text}.
     *
     * @throws IllegalArgumentException naming what is wrong with it
     */
    public static HostPort parse(String text, int defaultPort) {
        String s = text.strip();
        String host;
        String port = null;
        if (s.startsWith("[")) {
            int close = s.indexOf(']');
            if (close < 0) {
                throw new IllegalArgumentException("bad address '" + text + "': no ']' after the IPv6 address");
            }
            host = s.substring(1, close);
            String rest = s.substring(close + 1);
            if (!rest.isEmpty()) {
                if (!rest.startsWith(":")) {
                    throw new IllegalArgumentException("bad address '" + text + "': expected ':PORT' after ']'");
                }
                port = rest.substring(1);
            }
        } else {
            int colon = s.lastIndexOf(':');
            if (colon >= 0 && s.indexOf(':') != colon) {
                throw new IllegalArgumentException("bad address '" + text + "': put an IPv6 address in brackets,"
                        + " e.g. [::1]:" + defaultPort);
            }
            host = colon < 0 ? s : s.substring(0, colon);
            port = colon < 0 ? null : s.substring(colon + 1);
        }
        if (host.isEmpty()) {
            throw new IllegalArgumentException("bad address '" + text + "': no host (use e.g. 0.0.0.0:"
                    + defaultPort + ")");
        }
        int p = defaultPort;
        if (port != null) {
            if (!port.matches("\\d{1,5}") || Integer.parseInt(port) > 65535) {
                throw new IllegalArgumentException("bad address '" + text + "': port must be 0 to 65535");
            }
            p = Integer.parseInt(port);
        }
        return new HostPort(host, p);
    }

    /** The socket address, resolving the host now. */
    public InetSocketAddress resolve() {
        return new InetSocketAddress(host, port);
    }

    @Override
    public String toString() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
