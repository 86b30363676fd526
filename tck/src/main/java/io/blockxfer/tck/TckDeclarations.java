package io.blockxfer.tck;

import io.blockxfer.transport.ProgressMode;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What a backend promises beyond the contract every backend keeps, for the rules that check those
 * promises: the progress modes it supports and which one {@link ProgressMode#AUTO} picks, how
 * soon a caller's polls alone end a one-block transfer in {@link ProgressMode#POLLING_THREAD}
 * mode (and whether that work shows in its engine's {@code progress()} or only inside its
 * status call), and how many transfers its internal queue holds before a submit must wait, and
 * for how long at most. A backend declares them on its harness
 * ({@link InJvmHarness#withDeclarations(TckDeclarations)}); {@link #none()} declares nothing, and a
 * rule whose declaration is absent is skipped with the reason, like a rule whose capability is.
 *
 * <pre>{@code
 * TckDeclarations.none()
 *         .progressModes(ProgressMode.POLLING_THREAD, ProgressMode.BACKEND_THREAD)   // AUTO picks the first
 *         .pollingThreadBound(Duration.ofMillis(20))
 *         .queueCapacity(1 << 16, Duration.ofSeconds(5));
 * }</pre>
 *
 * <p><b>Thread safety:</b> immutable; the setters return new declarations.
 */
public final class TckDeclarations {

    private static final TckDeclarations NONE = new TckDeclarations(Set.of(), null, null, -1, null, false);

    private final Set<ProgressMode> progressModes;
    private final @Nullable ProgressMode autoMode;
    private final @Nullable Duration pollingThreadBound;
    private final int queueCapacity;
    private final @Nullable Duration submitBound;
    private final boolean pollsWorkInStatus;

    private TckDeclarations(Set<ProgressMode> progressModes, @Nullable ProgressMode autoMode,
            @Nullable Duration pollingThreadBound, int queueCapacity, @Nullable Duration submitBound,
            boolean pollsWorkInStatus) {
        this.progressModes = progressModes;
        this.autoMode = autoMode;
        this.pollingThreadBound = pollingThreadBound;
        this.queueCapacity = queueCapacity;
        this.submitBound = submitBound;
        this.pollsWorkInStatus = pollsWorkInStatus;
    }

    /** Declares nothing: the rules that need a declaration are skipped. */
    public static TckDeclarations none() {
        return NONE;
    }

    /**
     * Declares the progress modes the backend supports, each to be certified by a suite of its own
     * (see {@link ProgressModeCoverage}): {@code auto}, the one {@link ProgressMode#AUTO} picks,
     * and {@code others}.
     *
     * @throws IllegalArgumentException if a mode is {@link ProgressMode#AUTO}
     */
    public TckDeclarations progressModes(ProgressMode auto, ProgressMode... others) {
        Objects.requireNonNull(auto, "auto");
        EnumSet<ProgressMode> modes = EnumSet.of(auto);
        for (ProgressMode m : others) {
            modes.add(Objects.requireNonNull(m, "mode"));
        }
        if (modes.contains(ProgressMode.AUTO)) {
            throw new IllegalArgumentException("declare concrete modes: AUTO is the first of them");
        }
        return new TckDeclarations(Set.copyOf(modes), auto, pollingThreadBound, queueCapacity, submitBound,
                pollsWorkInStatus);
    }

    /**
     * Declares that in {@link ProgressMode#POLLING_THREAD} mode a caller polling without pause ends
     * a one-block transfer within {@code bound} of its submit, its polls driving it (rule T1). To
     * catch a backend whose polls leave the work to its fallback thread, the bound must be shorter
     * than that thread's own rhythm.
     *
     * @throws IllegalArgumentException if {@code bound} is not positive
     */
    public TckDeclarations pollingThreadBound(Duration bound) {
        Objects.requireNonNull(bound, "bound");
        if (bound.isNegative() || bound.isZero()) {
            throw new IllegalArgumentException("the polling-thread bound must be positive: " + bound);
        }
        return new TckDeclarations(progressModes, autoMode, bound, queueCapacity, submitBound, pollsWorkInStatus);
    }

    /**
     * Declares that the backend queues up to {@code capacity} transfers internally (0: it has no
     * queue of its own, every submit posts to the native layer) and that a submit finding the queue
     * full waits for room at most {@code submitBound}, instead of failing its transfer (rule T2
     * submits past the capacity to a held target).
     *
     * @throws IllegalArgumentException if {@code capacity} is negative or {@code submitBound} not
     *     positive
     */
    public TckDeclarations queueCapacity(int capacity, Duration submitBound) {
        Objects.requireNonNull(submitBound, "submitBound");
        if (capacity < 0) {
            throw new IllegalArgumentException("queue capacity must not be negative: " + capacity);
        }
        if (submitBound.isNegative() || submitBound.isZero()) {
            throw new IllegalArgumentException("the submit bound must be positive: " + submitBound);
        }
        return new TckDeclarations(progressModes, autoMode, pollingThreadBound, capacity, submitBound,
                pollsWorkInStatus);
    }

    /**
     * Declares that the backend's polls do their work inside its engine's {@code status} call
     * rather than in {@code TransferEngine.progress()} (NIXL's status call progresses the UCX
     * worker), so the work cannot be counted from outside: rule T1 then checks the polls' timing
     * only. Without it, T1 also counts the events that {@code progress()} returned on the polling
     * thread and fails when they are none.
     */
    public TckDeclarations pollsWorkInStatus() {
        return new TckDeclarations(progressModes, autoMode, pollingThreadBound, queueCapacity, submitBound, true);
    }

    /** Whether the backend's polls work inside its status call ({@link #pollsWorkInStatus()}). */
    public boolean isPollWorkInStatus() {
        return pollsWorkInStatus;
    }

    /** The progress modes the backend supports; empty when undeclared. */
    public Set<ProgressMode> progressModes() {
        return progressModes;
    }

    /** The mode {@link ProgressMode#AUTO} picks, if declared. */
    public Optional<ProgressMode> autoMode() {
        return Optional.ofNullable(autoMode);
    }

    /** The mode transports opened with {@code mode} run in: itself, or what AUTO picks; empty if unknown. */
    public Optional<ProgressMode> effectiveMode(ProgressMode mode) {
        return mode == ProgressMode.AUTO ? autoMode() : Optional.of(mode);
    }

    /** How soon polls alone end a one-block transfer in the polling-thread mode, if declared. */
    public Optional<Duration> pollingThreadBound() {
        return Optional.ofNullable(pollingThreadBound);
    }

    /** The capacity of the backend's internal queue, if declared. */
    public OptionalInt queueCapacity() {
        return queueCapacity < 0 ? OptionalInt.empty() : OptionalInt.of(queueCapacity);
    }

    /** The longest a submit waits for room in a full queue, if declared. */
    public Optional<Duration> submitBound() {
        return Optional.ofNullable(submitBound);
    }

    @Override
    public String toString() {
        return "TckDeclarations[modes " + progressModes + (autoMode == null ? "" : ", AUTO is " + autoMode)
                + (pollingThreadBound == null ? "" : ", polling-thread bound " + pollingThreadBound.toMillis() + " ms")
                + (queueCapacity < 0 ? "" : ", queue " + queueCapacity + " (submits wait at most "
                        + Objects.requireNonNull(submitBound).toMillis() + " ms)")
                + (pollsWorkInStatus ? ", polls work in the status call" : "") + "]";
    }
}
