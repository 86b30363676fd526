package io.blockxfer.multihost;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * How peers of one backend are set up between containers. Containers share no memory or IPC
 * namespace, so UCX (the UCX backend's, and NIXL's own copy inside its plugin) must use TCP over
 * the container's {@code eth0}, which is also what a network cut must be able to cut. Adding a
 * backend to the suite means adding its name here (and its module to the pom's profiles).
 *
 * <p><b>Thread safety:</b> immutable.
 *
 * @param name the provider name
 * @param env environment variables of every peer container
 * @param options transport options of every peer
 */
record BackendProfile(String name, Map<String, String> env, Map<String, String> options) {

    /** The backends the settings ask for, as JUnit arguments. */
    static Stream<String> enabled() {
        return MultihostSettings.get().backends().stream();
    }

    /** The profile of {@code name}. */
    static BackendProfile of(String name) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("UCX_TLS", "tcp");
        env.put("UCX_NET_DEVICES", "eth0");
        env.put("UCX_WARN_UNUSED_ENV_VARS", "n");
        Map<String, String> options = new LinkedHashMap<>();
        switch (name) {
            case "ucx" -> {
                options.put("ucx.tls", "tcp");
                options.put("ucx.net_devices", "eth0");
            }
            case "nixl" -> {
                // NIXL's UCX plugin reads UCX_* from the environment
            }
            default -> {
                // a backend not yet known here runs with the environment alone
            }
        }
        return new BackendProfile(name, Map.copyOf(env), Map.copyOf(options));
    }
}
