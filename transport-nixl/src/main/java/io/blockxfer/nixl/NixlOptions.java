package io.blockxfer.nixl;

/**
 * The {@link io.blockxfer.transport.TransportConfig#options() options} the {@code nixl} backend
 * reads, with their defaults. Unknown keys starting with {@code nixl.} are rejected when a
 * transport opens, so a typo fails loudly.
 *
 * <p>Backend parameters pass through unchanged: the option {@code nixl.<backend>.<key>} (backend
 * name in lower case) becomes the parameter {@code key} of that NIXL backend, for instance
 * {@code nixl.ucx.num_threads=4} or {@code nixl.ucx.device_list=mlx5_0:1}.
 *
 * <p><b>Thread safety:</b> constants only.
 */
public final class NixlOptions {

    /** Comma-separated NIXL backends (plugins) to create, in order; default {@value #DEFAULT_BACKENDS}. */
    public static final String BACKENDS = "nixl.backends";
    /** Default of {@link #BACKENDS}. */
    public static final String DEFAULT_BACKENDS = "UCX";

    /**
     * Whether the agent runs NIXL's progress thread; default {@code true}. A target without one
     * stalls connection wireup, so turn it off only for initiators that poll.
     */
    public static final String PROGRESS_THREAD = "nixl.progressThread";

    /**
     * How long NIXL's progress thread waits for an event of its worker before it looks anyway, in
     * microseconds (NIXL rounds it up to whole milliseconds; 0 spins a core per agent). Default
     * {@value #DEFAULT_FALLBACK_DELAY_MICROS} in the polling-thread progress mode (what
     * {@code AUTO} is: polls drive, and the thread is the fallback), {@value
     * #DEFAULT_PROGRESS_DELAY_MICROS} in the backend-thread mode.
     */
    public static final String PROGRESS_DELAY_MICROS = "nixl.progressDelayMicros";
    /** Default of {@link #PROGRESS_DELAY_MICROS} in {@code ProgressMode.BACKEND_THREAD}. */
    public static final long DEFAULT_PROGRESS_DELAY_MICROS = 100;
    /** Default of {@link #PROGRESS_DELAY_MICROS} in {@code ProgressMode.POLLING_THREAD} (and {@code AUTO}). */
    public static final long DEFAULT_FALLBACK_DELAY_MICROS = 100_000;

    /** Whether NIXL captures per-transfer telemetry ({@link NixlTelemetry}); default {@code true}. */
    public static final String TELEMETRY = "nixl.telemetry";

    /** How many finished transfers {@link NixlTelemetry} remembers; default {@value #DEFAULT_TELEMETRY_HISTORY}. */
    public static final String TELEMETRY_HISTORY = "nixl.telemetryHistory";
    /** Default of {@link #TELEMETRY_HISTORY}. */
    public static final int DEFAULT_TELEMETRY_HISTORY = 1024;

    /**
     * How many connections to removed peers are kept open, idle, for a later {@code addPeer} of the
     * same NIXL agent; default {@value #DEFAULT_IDLE_CONNECTIONS}, 0 closes each at once. NIXL 1.0 to
     * 1.5.1 cannot close the UCX endpoint of a live peer (UCX keeps it, and its sockets on both
     * sides, until the agent is destroyed), so re-adding a peer reuses its connection instead of
     * leaking another; past this many, the one idle longest is invalidated. Connections to failed
     * peers are closed at once whatever this says.
     */
    public static final String IDLE_CONNECTIONS = "nixl.idleConnections";
    /** Default of {@link #IDLE_CONNECTIONS}. */
    public static final int DEFAULT_IDLE_CONNECTIONS = 64;

    /**
     * Whether a region the backend allocates ({@code RegionSpec.allocate}) is advised to the kernel's
     * transparent huge pages when it spans one (2 MiB); default {@code true}. Copies between
     * processes walk the pages of both sides, so large transfers move faster on huge pages. Memory
     * the caller supplies is left as the caller made it.
     */
    public static final String HUGE_PAGES = "nixl.hugePages";

    /** The prefix of UCX backend parameters, e.g. {@code nixl.ucx.num_threads}. */
    public static final String UCX_PARAM_PREFIX = "nixl.ucx.";

    private NixlOptions() {
    }
}
