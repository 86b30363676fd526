package io.blockxfer.benchmarks.baseline;

import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One thing a baseline run measures (the Java backend, NIXL's Python API, the C API, raw JUCX,
 * memcpy, ...). Each round it sets itself up afresh, runs every case for the given time after a
 * short warm-up, and tears down, so that no contender holds threads or memory while another one
 * is measured.
 *
 * <p><b>Thread safety:</b> not thread-safe; driven by one thread.
 */
interface Contender {

    /** Its column title. */
    String name();

    /** One line on what it is and how it is set up. */
    String description();

    /**
     * Why it cannot run here, or null when it can.
     */
    default @Nullable String unavailable() {
        return null;
    }

    /**
     * Whether it runs in this JVM, so that what it compiles and loads stays for later rounds (the
     * run warms such contenders up with a round that is not counted); a driver started afresh each
     * round has nothing to carry over.
     */
    default boolean inThisJvm() {
        return true;
    }

    /** Measures {@code cases} for {@code seconds} each; the rate of each case. */
    Map<BaselineCase, Double> round(List<BaselineCase> cases, double seconds) throws Exception;

    /**
     * What the last {@link #round} cost, per case, where the contender counts it: empty by default.
     */
    default Map<BaselineCase, Cost> lastCosts() {
        return Map.of();
    }

    /**
     * What one case cost a contender, over its warm-up and measurement together.
     *
     * <p><b>Thread safety:</b> immutable.
     *
     * @param checksPerTransfer status calls (poll, {@code check_xfer_state}, {@code get_xfer_status},
     *     or waits) per transfer
     * @param cores CPU time of the contender's whole process over the wall time
     * @param hugePageShare the share of the initiator's and the target's regions that lay in
     *     transparent huge pages at the end of the case, or NaN where the contender does not say
     */
    record Cost(double checksPerTransfer, double cores, double hugePageShare) {
    }
}
