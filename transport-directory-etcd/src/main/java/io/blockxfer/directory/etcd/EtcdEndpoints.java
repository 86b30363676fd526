package io.blockxfer.directory.etcd;

import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The client endpoints of one etcd cluster, parsed from the forms a user writes:
 * <ul>
 *   <li>{@code etcd://HOST:PORT[,HOST:PORT...]}, the project's form (as in
 *       {@code --directory etcd://198.18.0.1:2379,198.18.0.2:2379}), or bare
 *       {@code HOST:PORT[,HOST:PORT...]}: plain text, or TLS when the directory is given TLS
 *       settings (a CA, a client certificate), as etcdctl does with endpoints without a scheme;</li>
 *   <li>{@code http://HOST:PORT[,http://HOST:PORT...]}, etcd's own form (as in
 *       {@code etcdctl --endpoints}): plain text;</li>
 *   <li>{@code https://HOST:PORT[,https://HOST:PORT...]}: TLS.</li>
 * </ul>
 * The scheme may be left off after the first item; items with different schemes are refused. A
 * host is a name, an IPv4 address or a bracketed IPv6 address; the port is required. Duplicates
 * are dropped, the order is kept.
 *
 * <p><b>Thread safety:</b> immutable.
 */
public final class EtcdEndpoints {

    /** How the endpoints were written, which decides plain text or TLS. */
    public enum Scheme {
        /** {@code etcd://} or no scheme: plain text unless the directory has TLS settings. */
        ETCD("etcd://"),
        /** {@code http://}: plain text. */
        HTTP("http://"),
        /** {@code https://}: TLS. */
        HTTPS("https://");

        private final String prefix;

        Scheme(String prefix) {
            this.prefix = prefix;
        }

        /** {@code etcd://}, {@code http://} or {@code https://}. */
        public String prefix() {
            return prefix;
        }
    }

    private final List<String> hostPorts;
    private final Scheme scheme;

    private EtcdEndpoints(List<String> hostPorts, Scheme scheme) {
        this.hostPorts = List.copyOf(hostPorts);
        this.scheme = scheme;
    }

    /**
     * Parses an endpoint list.
     *
     * @throws IllegalArgumentException naming the list and what is wrong with it
     * @throws NullPointerException if it is null
     */
    public static EtcdEndpoints parse(String endpoints) {
        Objects.requireNonNull(endpoints, "endpoints");
        String list = endpoints.strip();
        boolean etcdScheme = list.startsWith("etcd://");
        if (etcdScheme) {
            list = list.substring("etcd://".length());
        }
        if (list.isEmpty()) {
            throw invalid(endpoints, "it names no endpoint");
        }
        Set<String> parsed = new LinkedHashSet<>();
        Scheme scheme = etcdScheme ? Scheme.ETCD : null;
        for (String raw : list.split(",", -1)) {
            String item = raw.strip();
            Scheme itemScheme = null;
            for (Scheme s : List.of(Scheme.HTTP, Scheme.HTTPS)) {
                if (item.startsWith(s.prefix())) {
                    itemScheme = s;
                }
            }
            if (itemScheme != null) {
                if (etcdScheme) {
                    throw invalid(endpoints, "etcd:// is followed by HOST:PORT items, not by URLs");
                }
                if (scheme != null && scheme != itemScheme) {
                    throw invalid(endpoints, "it mixes " + scheme.prefix() + " and " + itemScheme.prefix()
                            + " (all endpoints of a cluster speak TLS, or none)");
                }
                scheme = itemScheme;
                item = item.substring(itemScheme.prefix().length());
                if (item.endsWith("/")) {
                    item = item.substring(0, item.length() - 1);
                }
            }
            parsed.add(hostPort(endpoints, item));
        }
        return new EtcdEndpoints(new ArrayList<>(parsed), scheme == null ? Scheme.ETCD : scheme);
    }

    private static String hostPort(String endpoints, String item) {
        if (item.isEmpty()) {
            throw invalid(endpoints, "it has an empty item");
        }
        int colon = item.lastIndexOf(':');
        if (colon <= 0 || colon == item.length() - 1) {
            throw invalid(endpoints, "'" + item + "' is not HOST:PORT");
        }
        String host = item.substring(0, colon);
        String port = item.substring(colon + 1);
        int portNumber;
        try {
            portNumber = Integer.parseInt(port);
        } catch (NumberFormatException e) {
            throw invalid(endpoints, "'" + item + "' has no port number");
        }
        if (portNumber < 1 || portNumber > 65535) {
            throw invalid(endpoints, "'" + item + "' has port " + portNumber + " outside 1-65535");
        }
        boolean bracketed = host.startsWith("[") && host.endsWith("]") && host.length() > 2;
        String bare = bracketed ? host.substring(1, host.length() - 1) : host;
        boolean valid = bracketed
                ? bare.chars().allMatch(c -> Character.digit(c, 16) >= 0 || c == ':' || c == '.')
                : bare.chars().allMatch(c -> (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
                        || (c >= '0' && c <= '9') || c == '.' || c == '-');
        if (!valid || bare.isEmpty()) {
            throw invalid(endpoints, "'" + item + "' has no valid host (a name, an IPv4 address or [IPv6])");
        }
        return host + ":" + portNumber;
    }

    private static IllegalArgumentException invalid(String endpoints, String problem) {
        String shown = endpoints.length() > 200 ? endpoints.substring(0, 200) + "..." : endpoints;
        return new IllegalArgumentException("etcd endpoints '" + shown + "' are invalid: " + problem
                + " (expected etcd://HOST:PORT[,HOST:PORT...], http://HOST:PORT[,http://HOST:PORT...] or"
                + " https://HOST:PORT[,https://HOST:PORT...])");
    }

    /** The endpoints as {@code HOST:PORT} items, in the order given. */
    public List<String> hostPorts() {
        return hostPorts;
    }

    /** How the endpoints were written: {@code etcd://} (or no scheme), {@code http://} or {@code https://}. */
    public Scheme scheme() {
        return scheme;
    }

    /**
     * The endpoints as {@code http://HOST:PORT} URIs ({@code https://} for {@link Scheme#HTTPS}),
     * for the etcd client. jetcd reads only their hosts and ports: TLS is its SSL context.
     */
    public List<URI> uris() {
        String prefix = scheme == Scheme.HTTPS ? "https://" : "http://";
        return hostPorts.stream().map(h -> URI.create(prefix + h)).toList();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof EtcdEndpoints e && hostPorts.equals(e.hostPorts) && scheme == e.scheme;
    }

    @Override
    public int hashCode() {
        return hostPorts.hashCode() * 31 + scheme.hashCode();
    }

    /**
     * {@code etcd://HOST:PORT[,HOST:PORT...]}, or {@code http://HOST:PORT,http://...} /
     * {@code https://HOST:PORT,https://...} as given: the form {@link #parse} reads back.
     */
    @Override
    public String toString() {
        if (scheme == Scheme.ETCD) {
            return hostPorts.stream().collect(Collectors.joining(",", "etcd://", ""));
        }
        return hostPorts.stream().map(h -> scheme.prefix() + h).collect(Collectors.joining(","));
    }
}
