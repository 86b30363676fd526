package io.blockxfer.tck;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The kit's settings, read from system properties (or the environment variables named in
 * parentheses) with defaults:
 * <ul>
 *   <li>{@code blockxfer.tck.timeoutMillis} ({@code BLOCKXFER_TCK_TIMEOUT_MILLIS}): how long a
 *       rule waits for transfers to end, default 15000;</li>
 *   <li>{@code blockxfer.tck.deadlineMillis}: the transfer deadline configured for the deadline
 *       rules, default 1500;</li>
 *   <li>{@code blockxfer.tck.stressMillis}: how long the stress rule runs, default 3000;</li>
 *   <li>{@code blockxfer.tck.fuzzIterations}: how many random descriptor blobs the decode rule
 *       offers, default 2000;</li>
 *   <li>{@code blockxfer.tck.closeTimeoutMillis}: the close timeout of the kit's transports, default
 *       5000 (the close rules set their own);</li>
 *   <li>{@code blockxfer.tck.quietMillis}: how long a rule polls to show that nothing more is
 *       reported, default 200;</li>
 *   <li>{@code blockxfer.tck.settleMillis}: how long a rule waits after a transfer's bytes landed
 *       before it treats the transfer as completed (the timing rules P10 and X5), default 500;</li>
 *   <li>{@code blockxfer.tck.holdMillis}: how long an initiator fault delays completions to hold
 *       transfers in flight, default 2000;</li>
 *   <li>{@code blockxfer.tck.wakeMillis}: how soon after its transfer ended (or its thread was
 *       interrupted, or its transport closed) a thread parked in a wait must return (the timing
 *       rules of waits and futures), default 1000;</li>
 *   <li>{@code blockxfer.tck.isolate} ({@code true}): whether the descriptor attack rules run in a
 *       child JVM where the harness can be recreated there;</li>
 *   <li>{@code blockxfer.tck.rules}: comma-separated rule ids to run (e.g. {@code F2,X4}), or sets
 *       of them by name ({@code @acrossProcesses}, {@code @nativeLibrary}, {@code @regionMemory}: the sets of
 *       {@link ConformanceRules} of those names); the others are skipped; default all;</li>
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
    private final Duration quiet;
    private final Duration closeTimeout;
    private final Duration settle;
    private final Duration hold;
    private final Duration wake;
    private final boolean isolate;
    private final String[] required;
    private final String[] selected;

    private TckEnvironment() {
        this.timeout = Duration.ofMillis(longSetting("blockxfer.tck.timeoutMillis", 15_000));
        this.deadline = Duration.ofMillis(longSetting("blockxfer.tck.deadlineMillis", 1_500));
        this.stress = Duration.ofMillis(longSetting("blockxfer.tck.stressMillis", 3_000));
        this.fuzzIterations = (int) longSetting("blockxfer.tck.fuzzIterations", 2_000);
        this.quiet = Duration.ofMillis(longSetting("blockxfer.tck.quietMillis", 200));
        this.closeTimeout = Duration.ofMillis(longSetting("blockxfer.tck.closeTimeoutMillis", 5_000));
        this.settle = Duration.ofMillis(longSetting("blockxfer.tck.settleMillis", 500));
        this.hold = Duration.ofMillis(longSetting("blockxfer.tck.holdMillis", 2_000));
        this.wake = Duration.ofMillis(longSetting("blockxfer.tck.wakeMillis", 1_000));
        this.isolate = Boolean.parseBoolean(setting("blockxfer.tck.isolate").orElse("true"));
        this.required = Arrays.stream(setting("blockxfer.tck.require").orElse("").split(","))
                .map(String::trim).filter(s -> !s.isEmpty()).toArray(String[]::new);
        this.selected = Arrays.stream(setting("blockxfer.tck.rules").orElse("").split(","))
                .map(String::trim).filter(s -> !s.isEmpty()).flatMap(TckEnvironment::ruleIds).toArray(String[]::new);
    }

    /**
     * The rule ids one entry of {@code blockxfer.tck.rules} names: a rule id, or a set of
     * {@link ConformanceRules} by its method's name after {@code @} ({@code @acrossProcesses},
     * {@code @nativeLibrary}, {@code @regionMemory}).
     *
     * @throws IllegalArgumentException for an {@code @} name that is no such set
     */
    private static Stream<String> ruleIds(String entry) {
        if (!entry.startsWith("@")) {
            return Stream.of(entry.toUpperCase(Locale.ROOT));
        }
        Set<ConformanceRules> set = switch (entry.substring(1)) {
            case "acrossProcesses" -> ConformanceRules.acrossProcesses();
            case "nativeLibrary" -> ConformanceRules.nativeLibrary();
            case "regionMemory" -> ConformanceRules.regionMemory();
            default -> throw new IllegalArgumentException("blockxfer.tck.rules: " + entry
                    + " names no set of rules (@acrossProcesses, @nativeLibrary, @regionMemory)");
        };
        return set.stream().map(Enum::name);
    }

    /** The settings of this JVM. */
    public static TckEnvironment fromSystem() {
        return new TckEnvironment();
    }

    /** The system property, or else the environment variable of {@link #envName}; empty when neither is set. */
    private static Optional<String> setting(String property) {
        String v = System.getProperty(property);
        if (v == null || v.isBlank()) {
            v = System.getenv(envName(property));
        }
        return v == null || v.isBlank() ? Optional.empty() : Optional.of(v.trim());
    }

    /** {@code blockxfer.tck.timeoutMillis} becomes {@code BLOCKXFER_TCK_TIMEOUT_MILLIS}. */
    static String envName(String property) {
        return property.replaceAll("([a-z])([A-Z])", "$1_$2").replace('.', '_').toUpperCase(Locale.ROOT);
    }

    private static long longSetting(String property, long defaultValue) {
        Optional<String> setting = setting(property);
        if (setting.isEmpty()) {
            return defaultValue;
        }
        String v = setting.get();
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

    /** How long a rule polls to show that nothing more is reported. */
    public Duration quiet() {
        return quiet;
    }

    /** The close timeout of the kit's transports. */
    public Duration closeTimeout() {
        return closeTimeout;
    }

    /** How long a rule waits for something that should take no time (a thread to end, a call to return). */
    public Duration shortWait() {
        return timeout.compareTo(Duration.ofSeconds(5)) < 0 ? timeout : Duration.ofSeconds(5);
    }

    /** How long after its bytes landed a transfer is taken to be completed. */
    public Duration settle() {
        return settle;
    }

    /** How long an initiator fault holds transfers in flight. */
    public Duration hold() {
        return hold;
    }

    /** How soon a parked waiter must return after what ends its wait. */
    public Duration wake() {
        return wake;
    }

    /** Whether descriptor attacks run in a child JVM where they can. */
    public boolean isolate() {
        return isolate;
    }

    /** Whether rule {@code id} is to run ({@code blockxfer.tck.rules} names it, or names none). */
    public boolean selects(String id) {
        return selected.length == 0 || Arrays.asList(selected).contains(id);
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
