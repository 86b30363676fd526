package io.blockxfer.multihost;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The command line of {@link PeerMain}: {@code --name value} pairs, {@code --opt key=value} repeatable.
 *
 * <p><b>Thread safety:</b> immutable.
 *
 * @param role {@code target}, {@code initiator} or {@code member}
 * @param control the Unix-domain socket to connect the control channel to
 * @param backend the provider name, e.g. {@code ucx}
 * @param agent the transport's agent name
 * @param blocks the target's block count (targets only)
 * @param blockLength the block length in bytes
 * @param transferTimeout the transfer deadline
 * @param closeTimeout how long close waits for transfers in flight
 * @param maxPeers how many peers an initiator's region has room for
 * @param workload the initiator's stream
 * @param seed the seed of the initiator's random choices
 * @param options backend options for {@link io.blockxfer.transport.TransportConfig}
 */
record PeerArgs(String role, Path control, String backend, String agent, int blocks, long blockLength,
        Duration transferTimeout, Duration closeTimeout, int maxPeers, Workload workload, long seed,
        Map<String, String> options) {

    static PeerArgs parse(String[] args) {
        Map<String, String> named = new LinkedHashMap<>();
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (!a.startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("expected --name value, got '" + a + "'");
            }
            String value = args[++i];
            if (a.equals("--opt")) {
                int eq = value.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException("--opt needs key=value, got '" + value + "'");
                }
                options.put(value.substring(0, eq), value.substring(eq + 1));
            } else {
                named.put(a.substring(2), value);
            }
        }
        Workload workload = new Workload(
                Integer.parseInt(named.getOrDefault("inflight", "8")),
                Integer.parseInt(named.getOrDefault("max-blocks", "4")),
                Double.parseDouble(named.getOrDefault("read-share", "0.5")),
                Duration.ofMillis(Long.parseLong(named.getOrDefault("progress-ms", "10000"))),
                Duration.ofMillis(Long.parseLong(named.getOrDefault("drain-ms", "20000"))));
        return new PeerArgs(
                required(named, "role"),
                Path.of(required(named, "control")),
                required(named, "backend"),
                named.getOrDefault("agent", "peer"),
                Integer.parseInt(named.getOrDefault("blocks", "128")),
                Long.parseLong(named.getOrDefault("block-length", "65536")),
                Duration.ofMillis(Long.parseLong(named.getOrDefault("timeout-ms", "10000"))),
                Duration.ofMillis(Long.parseLong(named.getOrDefault("close-timeout-ms", "5000"))),
                Integer.parseInt(named.getOrDefault("max-peers", "4")),
                workload,
                Long.parseLong(named.getOrDefault("seed", "1")),
                Map.copyOf(options));
    }

    private static String required(Map<String, String> named, String key) {
        String v = named.get(key);
        if (v == null) {
            throw new IllegalArgumentException("missing --" + key);
        }
        return v;
    }
}
