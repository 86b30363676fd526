package io.blockxfer.tck;

import io.blockxfer.loopback.LoopbackFaults;
import io.blockxfer.transport.DataTransport;
import java.time.Duration;
import java.util.Optional;

/**
 * Kill, stall and initiator faults through a transport's {@link LoopbackFaults} feature, which
 * every backend declaring {@link io.blockxfer.transport.Capability#FAULT_INJECTION} offers. The
 * loopback module is an optional dependency of the kit: {@link #available()} says whether it is
 * here, and nothing else in this class may be called when it is not.
 *
 * <p><b>Thread safety:</b> stateless.
 */
final class LoopbackHooks {

    private static final String FAULTS = "io.blockxfer.loopback.LoopbackFaults";

    private LoopbackHooks() {
    }

    /** Whether {@code LoopbackFaults} can be loaded here. */
    static boolean available() {
        try {
            Class.forName(FAULTS, false, LoopbackHooks.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    private static LoopbackFaults faults(DataTransport t) {
        return t.feature(LoopbackFaults.class).orElseThrow(() -> new UnsupportedOperationException(
                t.backendName() + " declares FAULT_INJECTION but offers no LoopbackFaults feature"));
    }

    static void kill(DataTransport t) {
        faults(t).kill();
        t.close();
    }

    static void stall(DataTransport t, boolean stalled) {
        faults(t).stall(stalled);
    }

    static Optional<InitiatorFaults> initiatorFaults(DataTransport t) {
        return t.feature(LoopbackFaults.class).map(f -> new InitiatorFaults() {
            @Override
            public void failNextSubmits(int count) {
                f.failNextSubmits(count);
            }

            @Override
            public void delayCompletions(Duration delay) {
                f.delayCompletions(delay);
            }
        });
    }
}
