package io.blockxfer.transport;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * How to open a transport: its region, agent name, config fields (whose fingerprint peers must
 * share), deadlines, an optional explicit backend, backend options such as {@code ucx.tls=tcp},
 * and an optional {@link DeploymentKeyRing} that authenticates peer descriptors.
 *
 * <p><b>Thread safety:</b> immutable; build it with {@link #builder(RegionSpec)}, whose
 * {@link Builder} is not thread-safe.
 */
public final class TransportConfig {

    /** Default for {@link #transferTimeout()}. */
    public static final Duration DEFAULT_TRANSFER_TIMEOUT = Duration.ofSeconds(10);
    /** Default for {@link #closeTimeout()}. */
    public static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(5);
    /** Default for {@link #notificationQueueCapacity()}. */
    public static final int DEFAULT_NOTIFICATION_QUEUE_CAPACITY = 65_536;
    /** The largest {@link #notificationQueueCapacity()} accepted. */
    public static final int MAX_NOTIFICATION_QUEUE_CAPACITY = 1 << 24;

    private final RegionSpec region;
    private final String agentName;
    private final Map<String, Object> configFields;
    private final String fingerprint;
    private final @Nullable String transport;
    private final Duration transferTimeout;
    private final Duration closeTimeout;
    private final Map<String, String> options;
    private final TransportObserver observer;
    private final ProgressMode progressMode;
    private final @Nullable DeploymentKeyRing keyRing;
    private final boolean acceptUnsignedPeers;
    private final int notificationQueueCapacity;

    private TransportConfig(Builder b) {
        this.region = b.region;
        this.agentName = b.agentName != null ? b.agentName : "blockxfer-" + UUID.randomUUID().toString().substring(0, 8);
        this.configFields = Collections.unmodifiableMap(new LinkedHashMap<>(b.configFields));
        this.fingerprint = ConfigFingerprint.of(this.configFields);
        this.transport = b.transport;
        this.transferTimeout = b.transferTimeout;
        this.closeTimeout = b.closeTimeout;
        this.options = Collections.unmodifiableMap(new LinkedHashMap<>(b.options));
        this.observer = b.observer;
        this.progressMode = b.progressMode;
        this.keyRing = b.keyRing;
        this.acceptUnsignedPeers = b.acceptUnsignedPeers;
        this.notificationQueueCapacity = b.notificationQueueCapacity;
    }

    /** A builder for a transport over {@code region}. */
    public static Builder builder(RegionSpec region) {
        return new Builder(region);
    }

    /** The local region to use. */
    public RegionSpec region() {
        return region;
    }

    /** The agent name; unique per process (a random one unless set). */
    public String agentName() {
        return agentName;
    }

    /** The config fields, unmodifiable. */
    public Map<String, Object> configFields() {
        return configFields;
    }

    /** The fingerprint of {@link #configFields()}. */
    public String fingerprint() {
        return fingerprint;
    }

    /** The backend asked for by name, if any. */
    public Optional<String> transport() {
        return Optional.ofNullable(transport);
    }

    /** How long a transfer may stay in flight before it is reported failed. */
    public Duration transferTimeout() {
        return transferTimeout;
    }

    /** How long {@link DataTransport#close()} waits for transfers still in flight. */
    public Duration closeTimeout() {
        return closeTimeout;
    }

    /** Backend options, unmodifiable; each backend documents the keys it reads. */
    public Map<String, String> options() {
        return options;
    }

    /** What observes the transport for metrics; {@link TransportObserver#NONE} unless set. */
    public TransportObserver observer() {
        return observer;
    }

    /** Which thread advances transfers; {@link ProgressMode#AUTO} unless set. */
    public ProgressMode progressMode() {
        return progressMode;
    }

    /**
     * The deployment's key ring, if any. With one, the transport signs its
     * {@link DataTransport#localDescriptor()}, and {@link DataTransport#addPeer} rejects, with an
     * {@link UnauthenticatedPeerException} and before any native call, a descriptor that is
     * unsigned (unless {@link #acceptUnsignedPeers()}), signed with a key not in the ring, or
     * changed after signing. Without one, signatures are neither made nor checked.
     */
    public Optional<DeploymentKeyRing> keyRing() {
        return Optional.ofNullable(keyRing);
    }

    /**
     * Whether a transport with a {@link #keyRing()} still registers peers whose descriptor is
     * unsigned; false unless set. Meant for peers that cannot sign, such as plain NIXL agents
     * driven from Python; signed descriptors are still verified. Whoever can write to the control
     * plane can then register an unsigned peer (or strip a signature), so turn it on only where the
     * control plane itself is authenticated. Has no effect without a key ring.
     */
    public boolean acceptUnsignedPeers() {
        return acceptUnsignedPeers;
    }

    /**
     * How many received notifications the transport keeps for its polls, waits and subscriber
     * before it drops new ones ({@value #DEFAULT_NOTIFICATION_QUEUE_CAPACITY} unless set). A full
     * queue never blocks the backend (which would stall every transfer behind it): a notification
     * that finds it full is dropped and counted ({@link NotificationStats#dropped()}), and the
     * sender's next delivered notification says how many of its own were dropped
     * ({@link Notification#droppedBefore()}). The queue holds at most this many notifications of
     * at most {@link Notification#MAX_PAYLOAD_BYTES} each.
     */
    public int notificationQueueCapacity() {
        return notificationQueueCapacity;
    }

    /** The option {@code key}, or {@code defaultValue}. */
    public String option(String key, String defaultValue) {
        return options.getOrDefault(key, defaultValue);
    }

    /** A builder starting from this config. */
    public Builder toBuilder() {
        Builder b = new Builder(region).agentName(agentName).configFields(configFields)
                .transferTimeout(transferTimeout).closeTimeout(closeTimeout).options(options).observer(observer)
                .progressMode(progressMode).keyRing(keyRing).acceptUnsignedPeers(acceptUnsignedPeers)
                .notificationQueueCapacity(notificationQueueCapacity);
        b.transport = transport;
        return b;
    }

    @Override
    public String toString() {
        return "TransportConfig[" + region + ", agent '" + agentName + "', fingerprint '" + fingerprint + "'"
                + (transport != null ? ", transport " + transport : "") + ", options " + options
                + (progressMode != ProgressMode.AUTO ? ", progress " + progressMode : "")
                + (keyRing != null ? ", keys " + keyRing.keyIds() + (acceptUnsignedPeers ? " or unsigned" : "") : "")
                + "]";
    }

    /**
     * Builds a {@link TransportConfig}.
     *
     * <p><b>Thread safety:</b> not thread-safe.
     */
    public static final class Builder {
        private final RegionSpec region;
        private @Nullable String agentName;
        private final Map<String, Object> configFields = new LinkedHashMap<>();
        private @Nullable String transport;
        private Duration transferTimeout = DEFAULT_TRANSFER_TIMEOUT;
        private Duration closeTimeout = DEFAULT_CLOSE_TIMEOUT;
        private final Map<String, String> options = new LinkedHashMap<>();
        private TransportObserver observer = TransportObserver.NONE;
        private ProgressMode progressMode = ProgressMode.AUTO;
        private @Nullable DeploymentKeyRing keyRing;
        private boolean acceptUnsignedPeers;
        private int notificationQueueCapacity = DEFAULT_NOTIFICATION_QUEUE_CAPACITY;

        private Builder(RegionSpec region) {
            this.region = Objects.requireNonNull(region, "region");
        }

        /** Sets the agent name (1-64 printable ASCII characters). */
        public Builder agentName(String name) {
            Objects.requireNonNull(name, "agentName");
            if (name.isEmpty() || name.length() > 64 || !name.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
                throw new IllegalArgumentException("agent name must be 1-64 printable ASCII chars without spaces: '"
                        + name + "'");
            }
            this.agentName = name;
            return this;
        }

        /** Replaces the config fields; their fingerprint must match every peer's. */
        public Builder configFields(Map<String, ?> fields) {
            Objects.requireNonNull(fields, "configFields");
            ConfigFingerprint.of(fields); // fail now on values without a JSON form
            configFields.clear();
            configFields.putAll(fields);
            return this;
        }

        /** Asks for a backend by provider name; {@code null} lets discovery choose. */
        public Builder transport(@Nullable String name) {
            this.transport = name;
            return this;
        }

        /** Sets the in-flight deadline of a transfer (positive). */
        public Builder transferTimeout(Duration timeout) {
            this.transferTimeout = positive(timeout, "transferTimeout");
            return this;
        }

        /** Sets how long close waits for transfers in flight (zero or more). */
        public Builder closeTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "closeTimeout");
            if (timeout.isNegative()) {
                throw new IllegalArgumentException("closeTimeout must not be negative: " + timeout);
            }
            this.closeTimeout = timeout;
            return this;
        }

        /** Sets one backend option. */
        public Builder option(String key, String value) {
            options.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
            return this;
        }

        /** Adds backend options. */
        public Builder options(Map<String, String> values) {
            values.forEach(this::option);
            return this;
        }

        /** Sets what observes the transport (metrics); see {@link TransportObserver}. */
        public Builder observer(TransportObserver observer) {
            this.observer = Objects.requireNonNull(observer, "observer");
            return this;
        }

        /** Sets which thread advances transfers (see {@link ProgressMode}). */
        public Builder progressMode(ProgressMode mode) {
            this.progressMode = Objects.requireNonNull(mode, "progressMode");
            return this;
        }

        /**
         * Sets the deployment's key ring that signs this transport's descriptor and authenticates
         * its peers' (see {@link TransportConfig#keyRing()}); {@code null} removes it.
         */
        public Builder keyRing(@Nullable DeploymentKeyRing ring) {
            this.keyRing = ring;
            return this;
        }

        /**
         * Opts in to registering peers with unsigned descriptors while a key ring is set (see
         * {@link TransportConfig#acceptUnsignedPeers()}); off by default.
         */
        public Builder acceptUnsignedPeers(boolean accept) {
            this.acceptUnsignedPeers = accept;
            return this;
        }

        /**
         * Sets how many received notifications wait for a poll before new ones are dropped (see
         * {@link TransportConfig#notificationQueueCapacity()}).
         *
         * @throws IllegalArgumentException if {@code capacity} is not in [1, {@value TransportConfig#MAX_NOTIFICATION_QUEUE_CAPACITY}]
         */
        public Builder notificationQueueCapacity(int capacity) {
            if (capacity < 1 || capacity > MAX_NOTIFICATION_QUEUE_CAPACITY) {
                throw new IllegalArgumentException("notification queue capacity must be in [1, "
                        + MAX_NOTIFICATION_QUEUE_CAPACITY + "]: " + capacity);
            }
            this.notificationQueueCapacity = capacity;
            return this;
        }

        /** The config. */
        public TransportConfig build() {
            return new TransportConfig(this);
        }

        private static Duration positive(Duration d, String what) {
            Objects.requireNonNull(d, what);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(what + " must be positive: " + d);
            }
            return d;
        }
    }
}
