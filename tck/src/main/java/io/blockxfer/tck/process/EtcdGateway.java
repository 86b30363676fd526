package io.blockxfer.tck.process;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import org.jspecify.annotations.Nullable;

/**
 * The HTTP side of a test etcd's members (or of an etcd gRPC proxy): its JSON gateway
 * ({@code POST /v3/...}, as root where authentication is on), {@code /health} and {@code /metrics},
 * over plain sockets (HTTP/1.0, no HTTP client library), with TLS where the cluster has it.
 *
 * <p><b>Thread safety:</b> immutable; each call opens a connection of its own.
 */
public final class EtcdGateway {

    private static final int CONNECT_MILLIS = 1_000;
    /** A loaded build host answers slowly; etcd's own calls are quick. */
    private static final int READ_MILLIS = 10_000;

    private final List<Integer> ports;
    private final @Nullable SSLContext tls;
    private final @Nullable String rootPassword;

    /**
     * The gateway of the members listening on {@code ports} (the first answers the JSON calls),
     * over TLS with {@code tls} (a client certificate the members trust) when not null, as root
     * with {@code rootPassword} when not null.
     */
    public EtcdGateway(List<Integer> ports, @Nullable SSLContext tls, @Nullable String rootPassword) {
        this.ports = List.copyOf(ports);
        this.tls = tls;
        this.rootPassword = rootPassword;
    }

    /**
     * Adds etcd user {@code user} with {@code password} and a role {@code user-role} that may
     * {@code permission} (READ, WRITE or READWRITE) keys under {@code prefix} only, as root.
     */
    public void addUser(String user, String password, String prefix, String permission) {
        String role = user + "-role";
        Base64.Encoder b64 = Base64.getEncoder();
        byte[] start = prefix.getBytes(StandardCharsets.UTF_8);
        byte[] end = start.clone();
        end[end.length - 1]++;
        asRoot("/v3/auth/role/add", "{\"name\":\"" + role + "\"}");
        asRoot("/v3/auth/role/grant", "{\"name\":\"" + role + "\",\"perm\":{\"permType\":\"" + permission
                + "\",\"key\":\"" + b64.encodeToString(start) + "\",\"range_end\":\"" + b64.encodeToString(end)
                + "\"}}");
        asRoot("/v3/auth/user/add", "{\"name\":\"" + user + "\",\"password\":\"" + password + "\"}");
        asRoot("/v3/auth/user/grant", "{\"user\":\"" + user + "\",\"role\":\"" + role + "\"}");
    }

    /**
     * {@link #post} as root, with a token of its own: a cluster with short-lived tokens (a JWT of
     * 1 s) expires a token shared by several calls on a loaded host, and every auth change makes
     * etcd refuse older simple tokens ("revision of auth store is old"); such a refusal is tried
     * once more with a new token.
     */
    public String asRoot(String path, String json) {
        try {
            return post(path, json, rootToken());
        } catch (AssertionError e) {
            String m = String.valueOf(e.getMessage());
            if (m.contains("invalid auth token") || m.contains("auth store is old")) {
                return post(path, json, rootToken());
            }
            throw e;
        }
    }

    /** A token for root, or null without authentication. */
    public @Nullable String rootToken() {
        String password = rootPassword;
        if (password == null) {
            return null;
        }
        String answer = post("/v3/auth/authenticate", "{\"name\":\"root\",\"password\":\"" + password + "\"}", null);
        String token = jsonString(answer, "token");
        if (token == null) {
            throw new AssertionError("etcd gave root no token: " + answer);
        }
        return token;
    }

    /** POSTs {@code json} to {@code path} of the first member's gateway; the body, or fails naming the answer. */
    public String post(String path, String json, @Nullable String token) {
        if (ports.isEmpty()) {
            throw new AssertionError("no etcd member runs to answer " + path);
        }
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        String answer = http(ports.get(0), "POST " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n"
                + "Content-Type: application/json\r\n" + (token == null ? "" : "Authorization: " + token + "\r\n")
                + "Content-Length: " + body.length + "\r\n\r\n" + json);
        if (!answer.startsWith("HTTP/1.0 200") && !answer.startsWith("HTTP/1.1 200")) {
            throw new AssertionError("etcd refused " + path + ": " + answer);
        }
        int split = answer.indexOf("\r\n\r\n");
        return split < 0 ? answer : answer.substring(split + 4);
    }

    /**
     * The client port of the member that leads now, as the members say
     * ({@code POST /v3/maintenance/status}), or fails when none says it leads.
     */
    public int leaderPort() {
        StringBuilder answers = new StringBuilder();
        String token = rootToken();
        for (int i = 0; i < ports.size(); i++) {
            String answer = http(ports.get(i), "POST /v3/maintenance/status HTTP/1.0\r\nHost: 127.0.0.1\r\n"
                    + (token == null ? "" : "Authorization: " + token + "\r\n")
                    + "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}");
            answers.append(" port ").append(ports.get(i)).append(": ")
                    .append(answer.lines().reduce((a, b) -> b).orElse(""));
            String self = jsonString(answer, "member_id");
            String leader = jsonString(answer, "leader");
            if (self != null && self.equals(leader)) {
                return ports.get(i);
            }
        }
        throw new AssertionError("no etcd member says it leads;" + answers);
    }

    /** {@code GET /health} of the member on {@code port}: the answer, or the error. */
    public String health(int port) {
        return http(port, "GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n");
    }

    /**
     * The Prometheus metrics on {@code port} ({@code GET /metrics}), by series: the metric's name
     * with its labels as written ({@code grpc_server_handled_total{grpc_code="OK",...}}).
     *
     * @throws AssertionError naming the answer when there are none
     */
    public Map<String, Double> metrics(int port) {
        String answer = http(port, "GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n");
        Map<String, Double> series = new LinkedHashMap<>();
        for (String line : answer.lines().toList()) {
            if (line.isEmpty() || line.startsWith("#") || line.startsWith("HTTP/") || !line.contains(" ")) {
                continue;
            }
            int space = line.lastIndexOf(' ');
            try {
                series.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
            } catch (NumberFormatException e) {
                // a header line of the answer
            }
        }
        if (series.isEmpty()) {
            throw new AssertionError("no metrics on port " + port + ": " + answer.lines().limit(5).toList());
        }
        return series;
    }

    /** The sum of every series of {@code name} in {@code metrics} whose labels hold each of {@code labels}. */
    public static double sum(Map<String, Double> metrics, String name, String... labels) {
        double total = 0;
        for (Map.Entry<String, Double> e : metrics.entrySet()) {
            String series = e.getKey();
            if (!series.equals(name) && !series.startsWith(name + "{")) {
                continue;
            }
            boolean all = true;
            for (String l : labels) {
                all &= series.contains(l);
            }
            if (all) {
                total += e.getValue();
            }
        }
        return total;
    }

    /** The string value of {@code "key":"value"} in a JSON text, or null. */
    static @Nullable String jsonString(String json, String key) {
        Matcher m = Pattern.compile("\"" + key + "\":\"([^\"]*)\"").matcher(json);
        return m.find() ? m.group(1) : null;
    }

    /** One HTTP/1.0 exchange with {@code port} on 127.0.0.1 (TLS when configured): the answer, or the error. */
    private String http(int port, String request) {
        SSLContext t = tls;
        try (Socket plain = new Socket()) {
            plain.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), CONNECT_MILLIS);
            plain.setSoTimeout(READ_MILLIS);
            Socket s = t == null ? plain : t.getSocketFactory().createSocket(plain, "127.0.0.1", port, true);
            OutputStream out = s.getOutputStream();
            out.write(request.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return e.toString();
        }
    }
}
