package io.blockxfer.tck.directory;

import io.blockxfer.loopback.LoopbackFaults;
import io.blockxfer.transport.DataTransport;

/**
 * Stalls a loopback transport as a peer, through its {@link LoopbackFaults}. The loopback module is
 * an optional dependency of the kit; the membership rules, the only callers, run only where it is
 * present.
 *
 * <p><b>Thread safety:</b> stateless.
 */
final class LoopbackStall {

    private LoopbackStall() {
    }

    /** Holds (or releases) transfers to {@code transport} in flight. */
    static void stall(DataTransport transport, boolean stalled) {
        transport.feature(LoopbackFaults.class).orElseThrow(() -> new IllegalStateException(transport.backendName()
                + " offers no LoopbackFaults feature")).stall(stalled);
    }
}
