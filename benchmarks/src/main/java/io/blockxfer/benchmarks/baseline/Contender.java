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

    /** Measures {@code cases} for {@code seconds} each; the rate of each case. */
    Map<BaselineCase, Double> round(List<BaselineCase> cases, double seconds) throws Exception;
}
