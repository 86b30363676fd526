package io.blockxfer.examples;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.loopback.LoopbackFaults;
import java.time.Duration;

/** docs/loopback.md: the faults a loopback transport causes on demand. Stateless. */
public final class LoopbackTesting {

    private LoopbackTesting() {
    }

    /**
     * Every fault at once on a loopback {@code transport}: its next three submits fail, it stalls
     * and is killed as a peer, and its completions come 20 ms late.
     *
     * @param transport a loopback transport
     */
    public static void faults(DataTransport transport) {
        // @start region="faults"
        LoopbackFaults faults = transport.feature(LoopbackFaults.class).orElseThrow();
        faults.failNextSubmits(3);                        // ids still returned, reported failed
        faults.stall(true);                               // as a peer: transfers to it hang (until the deadline)
        faults.kill();                                    // as a peer: its transfers fail, re-registration fails
        faults.delayCompletions(Duration.ofMillis(20));   // bytes move now, "done" later
        // @end region="faults"
    }
}
