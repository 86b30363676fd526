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

    private record Known(String option, String ucxName, @Nullable String defaultValue) {
    }

    private static final Known[] KNOWN = {
        new Known(UcxOptions.TLS, "TLS", null),
        new Known(UcxOptions.NET_DEVICES, "NET_DEVICES", null),
        new Known(UcxOptions.KEEPALIVE, "KEEPALIVE_INTERVAL", UcxOptions.DEFAULT_KEEPALIVE),
        new Known(UcxOptions.MM_ERROR_HANDLING, "MM_ERROR_HANDLING", UcxOptions.DEFAULT_MM_ERROR_HANDLING),
        new Known(UcxOptions.RCACHE, "RCACHE_ENABLE", null),
    };

    /** Where RDMA devices appear; without one, UCX's registration cache buys nothing. */
    private static final Path RDMA_DEVICES = Path.of("/sys/class/infiniband");

    private final Map<String, String> ucxConfig;

    private UcxSettings(Map<String, String> ucxConfig) {
        this.ucxConfig = Collections.unmodifiableMap(ucxConfig);
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
            } else if (find(key) == null) {
                throw new IllegalArgumentException("unknown UCX option '" + key + "'; known: " + UcxOptions.TLS + ", "
                        + UcxOptions.NET_DEVICES + ", " + UcxOptions.KEEPALIVE + ", " + UcxOptions.MM_ERROR_HANDLING
                        + ", " + UcxOptions.RCACHE + ", " + UcxOptions.CONFIG_PREFIX + "NAME");
            }
        }
        for (Known k : KNOWN) {
            String value = options.get(k.option);
            if (value == null) {
                value = properties.apply("blockxfer." + k.option);
            }
            if (value == null && environment.apply("UCX_" + k.ucxName) == null) {
                value = k.option.equals(UcxOptions.RCACHE) && !rdmaDevice ? UcxOptions.DEFAULT_RCACHE_WITHOUT_RDMA
                        : k.defaultValue;
            }
            if (value != null) {
                config.put(k.ucxName, requireValue(k.option, value));
            }
        }
        return new UcxSettings(config);
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

    /** UCX setting name (without {@code UCX_}) to value, in a stable order. */
    public Map<String, String> ucxConfig() {
        return ucxConfig;
    }

    @Override
    public String toString() {
        return ucxConfig.toString();
    }
}
