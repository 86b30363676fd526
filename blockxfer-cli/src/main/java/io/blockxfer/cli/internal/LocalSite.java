package io.blockxfer.cli.internal;

import io.blockxfer.transport.Capability;
import io.blockxfer.transport.spi.TransportProvider;
import java.util.Optional;

/**
 * Targets on this host: in this process, or in a child JVM ({@code --processes 2}), which needs a
 * backend whose peers can live in different processes and that allocates its own region.
 *
 * <p><b>Thread safety:</b> immutable.
 */
public final class LocalSite implements TargetSite {

    private final Placement placement;

    private LocalSite(Placement placement) {
        this.placement = placement;
    }

    /** Targets in this process. */
    public static LocalSite inProcess() {
        return new LocalSite(Placement.IN_PROCESS);
    }

    /** Targets in a child JVM. */
    public static LocalSite childProcess() {
        return new LocalSite(Placement.CHILD_PROCESS);
    }

    @Override
    public Placement placement() {
        return placement;
    }

    @Override
    public int regionsHere() {
        return placement == Placement.CHILD_PROCESS ? 3 : 2;
    }

    @Override
    public Optional<Refusal> refusal(TransportProvider provider) {
        if (placement == Placement.IN_PROCESS) {
            return Optional.empty();
        }
        if (!provider.capabilities().contains(Capability.CROSS_PROCESS)) {
            return Optional.of(new Refusal("--processes 2 needs a backend whose peers can live in different processes; "
                    + provider.name() + " lacks " + Capability.CROSS_PROCESS, true, null));
        }
        if (!provider.capabilities().contains(Capability.BACKEND_REGION)) {
            return Optional.of(new Refusal("--processes 2 needs a backend that allocates its region; "
                    + provider.name() + " lacks " + Capability.BACKEND_REGION, true, null));
        }
        return Optional.empty();
    }

    @Override
    public PeerPair open(TransportProvider provider, int numBlocks, long blockBytes, Tuning tuning) {
        return placement == Placement.CHILD_PROCESS ? ChildProcessPair.open(provider, numBlocks, blockBytes, tuning)
                : InProcessPair.open(provider, numBlocks, blockBytes, tuning);
    }

    @Override
    public void close() {
        // nothing held between points
    }
}
