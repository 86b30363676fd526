package io.blockxfer.cli.internal;

import io.blockxfer.transport.ProgressMode;
import java.util.Map;

/**
 * How a benchmark's transports are tuned: their {@link ProgressMode} ({@code --progress}) and
 * backend options ({@code --option KEY=VALUE}).
 *
 * <p><b>Thread safety:</b> immutable.
 *
 * @param progress which thread advances transfers
 * @param options backend options, e.g. {@code ucx.net_devices=eth0}
 */
public record Tuning(ProgressMode progress, Map<String, String> options) {

    /** The backends' defaults. */
    public static final Tuning DEFAULT = new Tuning(ProgressMode.AUTO, Map.of());

    /** Copies the options. */
    public Tuning {
        options = Map.copyOf(options);
    }
}
