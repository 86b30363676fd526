package io.blockxfer.ucx;

/**
 * The settings of the UCX backend: the {@link io.blockxfer.transport.TransportConfig#options()
 * option} keys it reads, their defaults, and the system properties and environment variables that
 * locate the UCX libraries.
 *
 * <p>Each option is resolved per transport, first match wins:
 * <ol>
 *   <li>the transport's config option, e.g. {@code option("ucx.tls", "sm,self")};</li>
 *   <li>the system property {@code blockxfer.} + key, e.g. {@code -Dblockxfer.ucx.net_devices=lo};</li>
 *   <li>UCX's own environment variable, e.g. {@code UCX_NET_DEVICES} (then the backend passes
 *       nothing and UCX reads it);</li>
 *   <li>the backend's default, where it has one.</li>
 * </ol>
 * {@link #LISTEN} is the backend's own (no UCX variable): option, property, default. Any other UCX
 * setting can be passed as {@code ucx.config.NAME=value} (UCX's variable name without {@code UCX_},
 * e.g. {@code ucx.config.PROTO_INFO=y}); a default of the backend for the same UCX setting then
 * steps aside. Unknown {@code ucx.*} keys are rejected.
 *
 * <p>Where UCX comes from, first match wins: {@value #LIBDIR_PROPERTY}, {@value #LIBDIR_ENV}, then
 * {@code <natives>/ucx/libucx/lib} where {@code <natives>} is {@value #NATIVES_DIR_PROPERTY},
 * {@value #NATIVES_DIR_ENV} or a {@code natives/} folder found walking up from the working
 * directory (what {@code scripts/install-natives} fills), then the system's {@code libucp.so.0}.
 * Only UCX {@value #CERTIFIED_VERSIONS} is accepted (what jucx is built against); any other
 * version is refused with the cause, unless {@value #ALLOW_UNCERTIFIED_PROPERTY} is {@code true}.
 *
 * <p><b>Thread safety:</b> constants only.
 */
public final class UcxOptions {

    /** UCX transports to use ({@code UCX_TLS}), e.g. {@code sm,self} or {@code rc,ud}; default: UCX's. */
    public static final String TLS = "ucx.tls";
    /** Network devices UCX may use ({@code UCX_NET_DEVICES}), e.g. {@code lo} or {@code mlx5_0:1}; default: all. */
    public static final String NET_DEVICES = "ucx.net_devices";
    /** Keepalive interval that detects dead peers ({@code UCX_KEEPALIVE_INTERVAL}); default {@value #DEFAULT_KEEPALIVE}. */
    public static final String KEEPALIVE = "ucx.keepalive";
    /**
     * Whether shared-memory transports advertise peer-failure handling
     * ({@code UCX_MM_ERROR_HANDLING}); default {@value #DEFAULT_MM_ERROR_HANDLING}, set only where
     * UCX may use shared memory ({@link #TLS}: UCX warns of a setting no transport reads). Without
     * it, the peer error mode this backend needs excludes shared memory and puts between processes
     * of one host fall back to tcp.
     */
    public static final String MM_ERROR_HANDLING = "ucx.mm_error_handling";
    /**
     * Whether UCX keeps a registration cache of user memory ({@code UCX_RCACHE_ENABLE}): on hosts
     * without an RDMA device it buys nothing (registration there maps nothing) and leaks about 2 KiB
     * of native memory per transport opened and closed and 1 KiB per peer added and removed (UCX
     * 1.18.1, measured), so it defaults to {@value #DEFAULT_RCACHE_WITHOUT_RDMA} there; with an RDMA
     * device ({@code /sys/class/infiniband}), UCX's own default ({@code try}).
     */
    public static final String RCACHE = "ucx.rcache";
    /**
     * The size of UCX's TCP send segments ({@code UCX_TCP_TX_SEG_SIZE}); default
     * {@value #DEFAULT_TCP_TX_SEG_SIZE}, set only where UCX may use tcp ({@link #TLS}). Over TCP UCX
     * emulates READs (the target sends the data back) and, without a listener ({@link #LISTEN}),
     * WRITEs with messages of one segment each: UCX's own 8 KiB made that a message, a copy and
     * (for WRITEs) an acknowledgement per 8 KiB. 64 KiB is what every UCX receives by default
     * ({@code UCX_TCP_RX_SEG_SIZE}), so a peer on UCX's defaults still reads these messages; a
     * larger value needs {@code ucx.config.TCP_RX_SEG_SIZE} at least as large on every peer.
     */
    public static final String TCP_TX_SEG_SIZE = "ucx.tcp_tx_seg_size";
    /** Default of {@link #TCP_TX_SEG_SIZE}. */
    public static final String DEFAULT_TCP_TX_SEG_SIZE = "64k";
    /**
     * Where this transport listens for peers on other hosts that reach it over TCP: {@code auto}
     * (the default: where UCX may use tcp, on the address of its one TCP interface, or on every
     * interface when it has several, at a port the system picks), {@code off}, or
     * {@code [HOST][:PORT]} (e.g. {@code 198.18.0.5:7800} where a firewall opens one port). A peer
     * connected through a listener gets zero-copy RMA over TCP: UCX 1.18 selects its TCP put only
     * for endpoints connected that way when errors are handled per peer, and emulates RMA with
     * messages for endpoints connected by worker address. Peers on this host (shared memory) and
     * peers reached by other transports (RDMA) are connected by worker address whatever this says.
     */
    public static final String LISTEN = "ucx.listen";
    /** Default of {@link #LISTEN}. */
    public static final String DEFAULT_LISTEN = "auto";
    /** Default of {@link #RCACHE} on hosts without an RDMA device. */
    public static final String DEFAULT_RCACHE_WITHOUT_RDMA = "n";
    /** Prefix of pass-through UCX settings: {@code ucx.config.NAME=value} sets {@code UCX_NAME}. */
    public static final String CONFIG_PREFIX = "ucx.config.";

    /**
     * Default of {@link #KEEPALIVE}. UCX's own 20 s would leave a dead peer undetected for that long;
     * detection takes one to two intervals (measured 0.7-1.1 s at 500 ms, 1.1-2.3 s at 1 s on a
     * loaded host), so 500 ms keeps it under 2 s.
     */
    public static final String DEFAULT_KEEPALIVE = "500ms";
    /** Default of {@link #MM_ERROR_HANDLING}. */
    public static final String DEFAULT_MM_ERROR_HANDLING = "y";

    /** System property naming the directory that holds {@code libucp.so.0} and its siblings. */
    public static final String LIBDIR_PROPERTY = "blockxfer.ucx.libdir";
    /** Environment variable naming the directory that holds {@code libucp.so.0} and its siblings. */
    public static final String LIBDIR_ENV = "BLOCKXFER_UCX_LIBDIR";
    /** System property naming the project's natives folder ({@code scripts/install-natives}). */
    public static final String NATIVES_DIR_PROPERTY = "blockxfer.natives.dir";
    /** Environment variable naming the project's natives folder. */
    public static final String NATIVES_DIR_ENV = "BLOCKXFER_NATIVES_DIR";
    /** The UCX releases the backend accepts: the release line jucx was built against. */
    public static final String CERTIFIED_VERSIONS = "1.18.x";
    /**
     * System property that, set to {@code true}, lets the backend run on a UCX outside
     * {@link #CERTIFIED_VERSIONS} (logged as a warning): unsupported, and it may crash the JVM.
     */
    public static final String ALLOW_UNCERTIFIED_PROPERTY = "blockxfer.ucx.allowUncertified";

    private UcxOptions() {
    }
}
