package io.blockxfer.tck;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;

/**
 * The kit's settings, read from system properties (or the environment variables named in
 * parentheses) with defaults:
 * <ul>
 *   <li>{@code blockxfer.tck.timeoutMillis} ({@code BLOCKXFER_TCK_TIMEOUT_MILLIS}): how long a
 *       rule waits for transfers to end, default 15000;</li>
 *   <li>{@code blockxfer.tck.deadlineMillis}: the transfer deadline configured for the deadline
 *       rules, default 1500;</li>
 *   <li>{@code blockxfer.tck.stressMillis}: how long the stress rule runs, default 3000;</li>
 *   <li>{@code blockxfer.tck.fuzzIterations}: how many malformed descriptors the metadata rule
 *       offers, default 2000;</li>
 *   <li>{@code blockxfer.tck.require} ({@code BLOCKXFER_TCK_REQUIRE}): comma-separated backend
 *       names that must be available; for them an unavailable backend fails every rule instead
 *       of skipping it.</li>
 * </ul>
 *
 * <p><b>Thread safety:</b> immutable.
 */
public final class TckEnvironment {

    private final Duration timeout;
    private final Duration deadline;
    private final Duration stress;
    private final int fuzzIterations;
    private final String[] required;

    private TckEnvironment() {
        this.timeout = Duration.ofMillis(longSetting("blockxfer.tck.timeoutMillis", 15_000));
        this.deadline = Duration.ofMillis(longSetting("blockxfer.tck.deadlineMillis", 1_500));
        this.stress = Duration.ofMillis(longSetting("blockxfer.tck.stressMillis", 3_000));
        this.fuzzIterations = (int) longSetting("blockxfer.tck.fuzzIterations", 2_000);
        this.required = Arrays.stream(setting("blockxfer.tck.require", "").split(","))
                .map(String::trim).filter(s -> !s.isEmpty()).toArray(String[]::new);
    }

    /** The settings of this JVM. */
    public static TckEnvironment fromSystem() {
        return new TckEnvironment();
    }

    private static String setting(String property, String defaultValue) {
        String v = System.getProperty(property);
        if (v == null || v.isBlank()) {
            v = System.getenv(envName(property));
        }
        return v == null || v.isBlank() ? defaultValue : v.trim();
    }

    /** {@code blockxfer.tck.timeoutMillis} becomes {@code BLOCKXFER_TCK_TIMEOUT_MILLIS}. */
    static String envName(String property) {
        return property.replaceAll("([a-z])([A-Z])", "$1_$2").replace('.', '_').toUpperCase(Locale.ROOT);
    }

    private static long longSetting(String property, long defaultValue) {
        String v = setting(property, null);
        if (v == null) {
            return defaultValue;
        }
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(property + " must be a number: '" + v + "'", e);
        }
    }

    /** How long a rule waits for transfers to end. */
    public Duration timeout() {
        return timeout;
    }

    /** The transfer deadline of the deadline rules. */
    public Duration deadline() {
        return deadline;
    }

    /** How long the stress rule runs. */
    public Duration stress() {
        return stress;
    }

    /** How many malformed descriptors the metadata rule offers. */
    public int fuzzIterations() {
        return fuzzIterations;
    }

    /** Whether {@code backend} must be available here. */
    public boolean requires(String backend) {
        for (String r : required) {
            if (r.equals(backend)) {
                return true;
            }
        }
        return false;
    }
}
