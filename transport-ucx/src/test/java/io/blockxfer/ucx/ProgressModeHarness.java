package io.blockxfer.ucx;

import io.blockxfer.tck.TargetPeer;
import io.blockxfer.tck.TckHarness;
import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.ProgressMode;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.spi.Availability;
import java.util.Set;

/**
 * A harness whose transports run in one {@link ProgressMode}: every config it is given is opened
 * with that mode (targets in another process get it only where that harness passes it on; the
 * initiator, whose polls drive, always does).
 *
 * <p><b>Thread safety:</b> immutable; as thread-safe as the harness it wraps.
 */
final class ProgressModeHarness implements TckHarness {

    private final TckHarness harness;
    private final ProgressMode mode;

    ProgressModeHarness(TckHarness harness, ProgressMode mode) {
        this.harness = harness;
        this.mode = mode;
    }

    private TransportConfig withMode(TransportConfig config) {
        return config.toBuilder().progressMode(mode).build();
    }

    @Override
    public String backend() {
        return harness.backend();
    }

    @Override
    public Availability availability() {
        return harness.availability();
    }

    @Override
    public Set<Capability> capabilities() {
        return harness.capabilities();
    }

    @Override
    public String mode() {
        return harness.mode() + ", " + mode;
    }

    @Override
    public DataTransport openInitiator(TransportConfig config) {
        return harness.openInitiator(withMode(config));
    }

    @Override
    public TargetPeer openTarget(TransportConfig config) {
        return harness.openTarget(withMode(config));
    }
}
