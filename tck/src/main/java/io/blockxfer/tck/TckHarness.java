package io.blockxfer.tck;

import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.spi.Availability;
import java.util.Set;

/**
 * Supplies a conformance suite with transports of one backend: initiators in this JVM and targets
 * in this JVM ({@link InJvmHarness}) or in other processes ({@link TwoProcessHarness}).
 *
 * <p><b>Thread safety:</b> implementations must be thread-safe.
 */
public interface TckHarness {

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
}
