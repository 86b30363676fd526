package io.blockxfer.ucx.internal;

import io.blockxfer.ucx.UcxOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * Resolves a transport's {@code ucx.*} options into the UCX settings its context is created with
 * (the precedence is documented on {@link UcxOptions}). UCX validates the values itself when the
 * context is created.
 *
 * <p><b>Thread safety:</b> immutable.
 */
public final class UcxSettings {

    /** Which transports UCX must be allowed to use for a default to be set (UCX warns of unread ones). */
    private enum Needs {
        NOTHING, SHARED_MEMORY, TCP
    }

    private record Known(String option, String ucxName, @Nullable String defaultValue, Needs needs) {
        Known(String option, String ucxName, @Nullable String defaultValue) {
            this(option, ucxName, defaultValue, Needs.NOTHING);
        }
    }

    private static final Known[] KNOWN = {
        new Known(UcxOptions.TLS, "TLS", null),
        new Known(UcxOptions.NET_DEVICES, "NET_DEVICES", null),
        new Known(UcxOptions.KEEPALIVE, "KEEPALIVE_INTERVAL", UcxOptions.DEFAULT_KEEPALIVE),
        new Known(UcxOptions.MM_ERROR_HANDLING, "MM_ERROR_HANDLING", UcxOptions.DEFAULT_MM_ERROR_HANDLING,
                Needs.SHARED_MEMORY),
        new Known(UcxOptions.RCACHE, "RCACHE_ENABLE", null),
        new Known(UcxOptions.TCP_TX_SEG_SIZE, "TCP_TX_SEG_SIZE", UcxOptions.DEFAULT_TCP_TX_SEG_SIZE, Needs.TCP),
    };

    /** Where RDMA devices appear; without one, UCX's registration cache buys nothing. */
    private static final Path RDMA_DEVICES = Path.of("/sys/class/infiniband");

    private final Map<String, String> ucxConfig;
    private final ListenSetting listen;

    private UcxSettings(Map<String, String> ucxConfig, ListenSetting listen) {
        this.ucxConfig = Collections.unmodifiableMap(ucxConfig);
        this.listen = listen;
    }

    /** The settings for {@code options}, with this process's system properties and environment. */
    public static UcxSettings resolve(Map<String, String> options) {
        return resolve(options, System::getProperty, System::getenv, hasRdmaDevice());
    }

    /** Whether this host has an RDMA device ({@code /sys/class/infiniband} lists one). */
    static boolean hasRdmaDevice() {
        try (Stream<Path> devices = Files.list(RDMA_DEVICES)) {
            return devices.findAny().isPresent();
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * The settings for {@code options}.
     *
     * @throws IllegalArgumentException for an unknown {@code ucx.*} key or an empty value
     */
    public static UcxSettings resolve(Map<String, String> options, UnaryOperator<String> properties,
            UnaryOperator<String> environment) {
        return resolve(options, properties, environment, true);
    }

    /**
     * The settings for {@code options}; {@link UcxOptions#RCACHE} defaults to off where
     * {@code rdmaDevice} is false.
     *
     * @throws IllegalArgumentException for an unknown {@code ucx.*} key or an empty value
     */
    public static UcxSettings resolve(Map<String, String> options, UnaryOperator<String> properties,
            UnaryOperator<String> environment, boolean rdmaDevice) {
        Map<String, String> config = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : options.entrySet()) {
            String key = e.getKey();
            if (!key.startsWith("ucx.")) {
                continue;
            }
            if (key.startsWith(UcxOptions.CONFIG_PREFIX)) {
                String name = key.substring(UcxOptions.CONFIG_PREFIX.length());
                if (name.isEmpty() || !name.chars().allMatch(c -> (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                        || c == '_')) {
                    throw new IllegalArgumentException("option " + key + ": UCX setting names are upper case without"
                            + " the UCX_ prefix, e.g. " + UcxOptions.CONFIG_PREFIX + "PROTO_INFO");
                }
                config.put(name, requireValue(key, e.getValue()));
            } else if (find(key) == null && !key.equals(UcxOptions.LISTEN)) {
                throw new IllegalArgumentException("unknown UCX option '" + key + "'; known: " + UcxOptions.TLS + ", "
                        + UcxOptions.NET_DEVICES + ", " + UcxOptions.KEEPALIVE + ", " + UcxOptions.MM_ERROR_HANDLING
                        + ", " + UcxOptions.RCACHE + ", " + UcxOptions.TCP_TX_SEG_SIZE + ", " + UcxOptions.LISTEN
                        + ", " + UcxOptions.CONFIG_PREFIX + "NAME");
            }
        }
        Map<String, String> passedThrough = Map.copyOf(config);
        String tls = given(options, properties, UcxOptions.TLS);
        UcxTransportList transports = UcxTransportList.of(tls != null ? tls : environment.apply("UCX_TLS"));
        for (Known k : KNOWN) {
            String value = given(options, properties, k.option);
            if (value == null && environment.apply("UCX_" + k.ucxName) == null
                    && !passedThrough.containsKey(k.ucxName) && usable(k.needs, transports)) {
                value = k.option.equals(UcxOptions.RCACHE) && !rdmaDevice ? UcxOptions.DEFAULT_RCACHE_WITHOUT_RDMA
                        : k.defaultValue;
            }
            if (value != null) {
                config.put(k.ucxName, requireValue(k.option, value));
            }
        }
        String listen = given(options, properties, UcxOptions.LISTEN);
        return new UcxSettings(config, listen == null ? ListenSetting.parse(UcxOptions.DEFAULT_LISTEN)
                : ListenSetting.parse(requireValue(UcxOptions.LISTEN, listen)));
    }

    /** The value of {@code option} in the transport's options, else its system property, else null. */
    private static @Nullable String given(Map<String, String> options, UnaryOperator<String> properties,
            String option) {
        String value = options.get(option);
        return value != null ? value : properties.apply("blockxfer." + option);
    }

    private static boolean usable(Needs needs, UcxTransportList transports) {
        return switch (needs) {
            case NOTHING -> true;
            case SHARED_MEMORY -> transports.sharedMemory();
            case TCP -> transports.tcp();
        };
    }

    private static @Nullable Known find(String option) {
        for (Known k : KNOWN) {
            if (k.option.equals(option)) {
                return k;
            }
        }
        return null;
    }

    private static String requireValue(String key, String value) {
        if (value.isBlank()) {
            throw new IllegalArgumentException("option " + key + " must not be empty");
        }
        return value.trim();
    }

    /** Whether and where the transport listens for peers on other hosts ({@link UcxOptions#LISTEN}). */
    ListenSetting listen() {
        return listen;
    }

    /** UCX setting name (without {@code UCX_}) to value, in a stable order. */
    public Map<String, String> ucxConfig() {
        return ucxConfig;
    }

    @Override
    public String toString() {
        return ucxConfig + ", listen " + listen;
    }
}
