package io.blockxfer.tck;

import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.ProgressMode;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.spi.Availability;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A harness whose transports run in one {@link ProgressMode}: every config it is given is opened
 * with that mode (targets in another process get it only where that harness passes it on; the
 * initiator, whose polls drive, always does). A backend certifies each of its modes with one
 * suite per mode:
 *
 * <pre>{@code
 * protected TckHarness harness() {
 *     return ProgressModeHarness.of(InJvmHarness.of("mine"), ProgressMode.BACKEND_THREAD);
 * }
 * }</pre>
 *
 * <p><b>Thread safety:</b> immutable; as thread-safe as the harness it wraps.
 */
public final class ProgressModeHarness implements TckHarness {

    private final TckHarness harness;
    private final ProgressMode mode;

    private ProgressModeHarness(TckHarness harness, ProgressMode mode) {
        this.harness = Objects.requireNonNull(harness, "harness");
        this.mode = Objects.requireNonNull(mode, "mode");
    }

    /** {@code harness}, with every transport it opens in progress mode {@code mode}. */
    public static ProgressModeHarness of(TckHarness harness, ProgressMode mode) {
        return new ProgressModeHarness(harness, mode);
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
    public ProgressMode progressMode() {
        return mode;
    }

    @Override
    public TckDeclarations declarations() {
        return harness.declarations();
    }

    @Override
    public boolean targetsInOtherProcesses() {
        return harness.targetsInOtherProcesses();
    }

    @Override
    public Memory memory() {
        return harness.memory();
    }

    @Override
    public Optional<InitiatorFaults> initiatorFaults(DataTransport initiator) {
        return harness.initiatorFaults(initiator);
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
