package io.blockxfer.cli.internal;

import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.ProgressMode;
import java.util.Map;
import java.util.Optional;

/**
 * How a benchmark's transports are set up: their {@link ProgressMode} ({@code --progress}), backend
 * options ({@code --option KEY=VALUE}) and the deployment key ring that signs and checks their
 * descriptors ({@code --key-file}).
 *
 * <p><b>Thread safety:</b> immutable.
 *
 * @param progress which thread advances transfers
 * @param options backend options, e.g. {@code ucx.net_devices=eth0}
 * @param keyRing the key ring of every transport, or empty for unauthenticated descriptors
 */
public record Tuning(ProgressMode progress, Map<String, String> options, Optional<DeploymentKeyRing> keyRing) {

    /** The backends' defaults, without a key. */
    public static final Tuning DEFAULT = new Tuning(ProgressMode.AUTO, Map.of());

    /** Copies the options. */
    public Tuning {
        options = Map.copyOf(options);
    }

    /** Without a key ring. */
    public Tuning(ProgressMode progress, Map<String, String> options) {
        this(progress, options, Optional.empty());
    }
}
