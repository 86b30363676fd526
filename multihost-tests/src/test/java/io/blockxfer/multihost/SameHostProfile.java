package io.blockxfer.multihost;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How the service soak sets up one backend between processes of one host: what a KV-cache tier
 * whose peers share a host would run. Peers on one host talk through shared memory, not through
 * the network stack, so UCX (the UCX backend's, and the copy inside NIXL's UCX plugin) is limited
 * to its shared-memory transports ({@code UCX_TLS=sm,self}: posix/sysv segments; cma is excluded
 * by the peer error mode both use). Shared memory has no connection to break, so a dead peer is
 * found by UCX's keepalive, which runs only with {@code UCX_MM_ERROR_HANDLING=y}: the UCX backend
 * sets that and a 500 ms keepalive by default; for NIXL they go into the environment, which its
 * plugin reads. {@code --ucx-tls tcp} runs the same soak over TCP on {@code lo} instead.
 *
 * <p>The loopback backend cannot cross processes: its targets are transports in the initiator's JVM.
 *
 * <p><b>Thread safety:</b> immutable.
 *
 * @param backend the provider name
 * @param env environment variables of the initiator and its target processes
 * @param options transport options of the initiator and every target
 * @param crossProcess whether targets run in processes of their own
 * @param description one line for the report
 */
record SameHostProfile(String backend, Map<String, String> env, Map<String, String> options, boolean crossProcess,
        String description) {

    /** The profile of {@code backend}, with UCX's transports {@code ucxTls} ({@code sm} or {@code tcp}). */
    static SameHostProfile of(String backend, String ucxTls) {
        boolean tcp = switch (ucxTls) {
            case "sm" -> false;
            case "tcp" -> true;
            default -> throw new IllegalArgumentException("--ucx-tls must be sm or tcp, got '" + ucxTls + "'");
        };
        String tls = tcp ? "tcp,self" : "sm,self";
        Map<String, String> env = new LinkedHashMap<>();
        Map<String, String> options = new LinkedHashMap<>();
        env.put("UCX_WARN_UNUSED_ENV_VARS", "n");
        return switch (backend) {
            case "ucx" -> {
                options.put("ucx.tls", tls);
                if (tcp) {
                    options.put("ucx.net_devices", "lo");
                }
                yield new SameHostProfile(backend, Map.copyOf(env), Map.copyOf(options), true,
                        "UCX " + tls + (tcp ? " on lo" : " (posix/sysv shared memory)")
                                + ", peer error mode, backend defaults: UCX_MM_ERROR_HANDLING=y, keepalive 500 ms");
            }
            case "nixl" -> {
                env.put("UCX_TLS", tls);
                if (tcp) {
                    env.put("UCX_NET_DEVICES", "lo");
                }
                env.put("UCX_MM_ERROR_HANDLING", "y");
                env.put("UCX_KEEPALIVE_INTERVAL", "500ms");
                yield new SameHostProfile(backend, Map.copyOf(env), Map.copyOf(options), true,
                        "NIXL UCX plugin with UCX_TLS=" + tls + (tcp ? " on lo" : "")
                                + ", UCX_MM_ERROR_HANDLING=y, UCX_KEEPALIVE_INTERVAL=500ms (environment)");
            }
            case "loopback" -> new SameHostProfile(backend, Map.of(), Map.of(), false,
                    "loopback: targets are transports in the initiator's JVM (it cannot cross processes);"
                            + " a kill is LoopbackFaults.kill() and a restart opens a new transport");
            default -> throw new IllegalArgumentException("unknown backend '" + backend + "': ucx, nixl or loopback");
        };
    }
}
