package io.blockxfer.cli.internal;

import io.blockxfer.transport.Capability;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.spi.TransportProvider;
import java.lang.foreign.Arena;
import java.time.Duration;

/**
 * The transport configs a benchmark opens: a region the backend allocates when it can (it may
 * have a faster kind of memory), otherwise page-aligned memory from the caller's arena; the
 * progress mode, backend options and key ring of the run.
 *
 * <p><b>Thread safety:</b> stateless.
 */
public final class BenchConfigs {

    /** How long a benchmark transfer may stay in flight before the transport fails it. */
    public static final Duration TRANSFER_TIMEOUT = Duration.ofSeconds(30);

    private BenchConfigs() {
    }

    /** A config of {@code numBlocks} blocks of {@code blockBytes} for {@code provider}, named after {@code agent}. */
    public static TransportConfig config(TransportProvider provider, Arena arena, int numBlocks, long blockBytes,
            String agent, Tuning tuning) {
        RegionSpec region = provider.capabilities().contains(Capability.BACKEND_REGION)
                ? RegionSpec.allocate(numBlocks, blockBytes)
                : RegionSpec.wrap(arena.allocate(numBlocks * blockBytes, 4096), blockBytes);
        try {
            TransportConfig.Builder b = TransportConfig.builder(region).agentName(agent + "-"
                    + ProcessHandle.current().pid()).transferTimeout(TRANSFER_TIMEOUT).closeTimeout(Duration.ofSeconds(10))
                    .progressMode(tuning.progress()).options(tuning.options());
            tuning.keyRing().ifPresent(b::keyRing);
            return b.build();
        } catch (IllegalArgumentException e) {
            throw CliException.usage("bad transport setting: " + e.getMessage());
        }
    }
}
