package io.blockxfer.cli.internal;

import io.blockxfer.transport.Capability;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.spi.TransportProvider;
import java.lang.foreign.Arena;
import java.time.Duration;

/**
 * The transport configs a benchmark opens: a region the backend allocates when it can (it may
 * have a faster kind of memory), otherwise page-aligned memory from the caller's arena.
 *
 * <p><b>Thread safety:</b> stateless.
 */
final class BenchConfigs {

    /** How long a benchmark transfer may stay in flight before the transport fails it. */
    static final Duration TRANSFER_TIMEOUT = Duration.ofSeconds(30);

    private BenchConfigs() {
    }

    static TransportConfig config(TransportProvider provider, Arena arena, int numBlocks, long blockBytes,
            String agent) {
        RegionSpec region = provider.capabilities().contains(Capability.BACKEND_REGION)
                ? RegionSpec.allocate(numBlocks, blockBytes)
                : RegionSpec.wrap(arena.allocate(numBlocks * blockBytes, 4096), blockBytes);
        return TransportConfig.builder(region).agentName(agent + "-" + ProcessHandle.current().pid())
                .transferTimeout(TRANSFER_TIMEOUT).closeTimeout(Duration.ofSeconds(10)).build();
    }
}
