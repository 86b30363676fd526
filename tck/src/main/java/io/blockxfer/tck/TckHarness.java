package io.blockxfer.tck;

import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.ProgressMode;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.spi.Availability;
import java.util.Optional;
import java.util.Set;

/**
 * Supplies a conformance suite with transports of one backend: initiators in this JVM and targets
 * in this JVM ({@link InJvmHarness}) or in other processes ({@link TwoProcessHarness}).
 *
 * <p><b>Thread safety:</b> implementations must be thread-safe.
 */
public interface TckHarness {

    /** Where the regions of the kit's transports come from. <b>Thread safety:</b> immutable. */
    enum Memory {
        /** The backend allocates them ({@code RegionSpec.allocate}) if it can, else the kit supplies them. */
        DEFAULT,
        /** The kit supplies them ({@code RegionSpec.wrap}); needs {@link Capability#CALLER_REGION}. */
        CALLER
    }

    /** The backend's provider name. */
    String backend();

    /** Whether the backend can run here. */
    Availability availability();

    /** The backend's capabilities. */
    Set<Capability> capabilities();

    /** A short name of how initiator and target are placed, shown in reports. */
    String mode();

    /** Opens an initiator in this JVM. */
    DataTransport openInitiator(TransportConfig config);

    /** Opens a target with the same config, where this harness places targets. */
    TargetPeer openTarget(TransportConfig config);

    /**
     * Whether the targets this harness opens live in other processes than the initiator, so that a
     * rule can stall or kill them and their bytes cross an address space; {@code false} unless the
     * harness says otherwise ({@link TwoProcessHarness}).
     */
    default boolean targetsInOtherProcesses() {
        return false;
    }

    /** Where the kit's regions come from; {@link Memory#DEFAULT} unless the harness says otherwise. */
    default Memory memory() {
        return Memory.DEFAULT;
    }

    /**
     * Fault hooks for {@code initiator}, an initiator this harness opened, if the harness has them;
     * rules that need them are skipped (with the reason) where it does not.
     */
    default Optional<InitiatorFaults> initiatorFaults(DataTransport initiator) {
        return Optional.empty();
    }

    /**
     * The progress mode this harness opens transports with; {@link ProgressMode#AUTO} unless the
     * harness sets one ({@link ProgressModeHarness}).
     */
    default ProgressMode progressMode() {
        return ProgressMode.AUTO;
    }

    /**
     * What the backend declares for the rules that check its promises (progress modes, the
     * polling-thread bound, queue capacity); {@link TckDeclarations#none()} unless the harness was
     * given some.
     */
    default TckDeclarations declarations() {
        return TckDeclarations.none();
    }
}
