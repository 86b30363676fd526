package io.blockxfer.directory.etcd;

import io.blockxfer.directory.Directory;
import io.blockxfer.directory.DirectoryDispatcher;
import io.blockxfer.directory.DirectoryLimits;
import io.blockxfer.directory.DirectoryListener;
import io.blockxfer.directory.DirectoryScope;
import io.blockxfer.directory.DirectorySnapshot;
import io.blockxfer.directory.DirectoryUnavailableException;
import io.blockxfer.directory.DirectoryWatch;
import io.blockxfer.directory.Publication;
import io.blockxfer.directory.PublicationListener;
import io.blockxfer.directory.etcd.internal.AccessProbe;
import io.blockxfer.directory.etcd.internal.EtcdConnection;
import io.blockxfer.directory.etcd.internal.EtcdTls;
import io.blockxfer.directory.etcd.internal.EtcdctlVariables;
import io.blockxfer.directory.etcd.internal.KeyReader;
import io.blockxfer.directory.etcd.internal.LeasedEntry;
import io.blockxfer.directory.etcd.internal.RangeLister;
import io.blockxfer.directory.etcd.internal.RangeWatch;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongFunction;
import org.jspecify.annotations.Nullable;

/**
 * The {@link Directory} on etcd (3.4 or newer), through jetcd: a member's entry is a key
 * {@code prefix + memberId} put under an etcd lease of its TTL, which this client renews every
 * TTL/3 (with a group, its group key too, in the same transaction under the same lease); a watch
 * lists its scope's key range ({@link DirectoryScope}) and follows it with one etcd watcher of that
 * range that resumes, or resyncs, across reconnects; every watcher of a connection is on its one
 * etcd watch stream. See the module README for running a deployment on etcd, also behind etcd's
 * gRPC proxy.
 *
 * <pre>{@code
 * try (EtcdDirectory directory = EtcdDirectory.builder("etcd://198.18.0.1:2379,198.18.0.2:2379,198.18.0.3:2379")
 *         .prefix("/blockxfer/prod-eu/").build()) {
 *     Publication me = directory.publish("worker-17", entryBytes, Duration.ofSeconds(15), (p, why) -> ...);
 *     DirectoryWatch members = directory.watch(listener);
 * }
 * }</pre>
 *
 * <p>What it adds to the {@link Directory} contract:
 * <ul>
 *   <li><b>Connection.</b> The client connects on its first call, to any of the endpoints
 *       (round-robin), and fails over between them. Every call but the watch stream carries a
 *       deadline of {@link #operationTimeout()}; gRPC keepalive pings (after 10 s without
 *       traffic while a call such as the watch is open; the connection is closed when one is not
 *       answered within 5 s) notice a connection whose peer vanished without closing it.</li>
 *   <li><b>Leases.</b> {@code publish} grants the lease, then makes the value for its id, then
 *       puts it with the lease (one transaction for the member's key and its group key);
 *       listings and events report each key's lease ({@code KeyValue.getLease()}, 0 for a plain
 *       put). A lease is renewed every TTL/3 (again
 *       every 500 ms while that fails); it is
 *       lost when etcd answers that it no longer holds it, or when no renewal succeeded for the TTL
 *       and one second more. etcd may grant a longer TTL than asked (its minimum is 1.5 election
 *       timeouts); {@link Publication#ttl()} is the TTL granted.</li>
 *   <li><b>Listings</b> are read in pages at one revision, so a deployment of many members lists
 *       within the client's response limit.</li>
 *   <li><b>TLS and authentication</b> as etcdctl configures them ({@link Builder#trustedCa},
 *       {@link Builder#clientCertificate}, {@link Builder#user}, {@link #fromEnvironment()}),
 *       checked against etcd by {@link Builder#build()}; certificate files renewed in place are
 *       used from the next connection on. Failures are {@link EtcdTlsException}s and
 *       {@link EtcdAuthException}s, never retried as unavailability.</li>
 *   <li><b>One stream, one connection.</b> Every watch of this client is a watcher on one etcd
 *       watch stream; {@link #forPrefix} gives another prefix on the same connection and stream.
 *       {@link #read} of one key is one range call on the connection's channel.</li>
 *   <li><b>Threads.</b> jetcd and gRPC call back on a Vert.x event loop; nothing of ours runs or
 *       blocks there: events go to the dispatcher's thread ({@code blockxfer-directory-<name>}),
 *       lease renewals and reconnects to a timer thread ({@code blockxfer-etcd-<name>}).</li>
 * </ul>
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
public final class EtcdDirectory implements Directory {

    /** The operation timeout unless set: 5 s. */
    public static final Duration DEFAULT_OPERATION_TIMEOUT = Duration.ofSeconds(5);
    /** The prefix unless set. */
    public static final String DEFAULT_PREFIX = "/blockxfer/default/";
    /** The shortest operation timeout accepted. */
    public static final Duration MIN_OPERATION_TIMEOUT = Duration.ofMillis(100);
    /** The longest operation timeout accepted. */
    public static final Duration MAX_OPERATION_TIMEOUT = Duration.ofMinutes(5);

    /** etcdctl's variables that {@link Builder#environment(Map)} reads. */
    public static final List<String> ENVIRONMENT_VARIABLES = List.of("ETCDCTL_ENDPOINTS", "ETCDCTL_CACERT",
            "ETCDCTL_CERT", "ETCDCTL_KEY", "ETCDCTL_USER", "ETCDCTL_PASSWORD", "ETCDCTL_INSECURE_SKIP_TLS_VERIFY");

    private static final System.Logger LOG = System.getLogger(EtcdDirectory.class.getName());
    private static final AtomicInteger COUNT = new AtomicInteger();

    private final String name;
    private final String prefix;
    private final EtcdConnection connection;
    private final KeyReader keys;
    private final DirectoryDispatcher dispatcher;
    private final Set<LeasedEntry> publications = ConcurrentHashMap.newKeySet();
    private final Set<RangeWatch> watches = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    private EtcdDirectory(Builder b, @Nullable EtcdTls tls, @Nullable String user, byte @Nullable [] password) {
        this.name = b.name != null ? b.name : "etcd-" + COUNT.incrementAndGet();
        this.prefix = b.prefix;
        String owner = describe(name, b.endpoints, prefix);
        this.connection = new EtcdConnection(b.endpoints, b.operationTimeout, name, owner, tls, user, password);
        if (tls != null || user != null) {
            // TLS or a user: what is misconfigured is refused here, not at the first publish or watch
            AccessProbe.checkAtBuild(connection, tls, prefix);
        }
        this.keys = new KeyReader(connection);
        this.dispatcher = new DirectoryDispatcher(name);
    }

    /** A directory of another prefix on {@code parent}'s connection. */
    private EtcdDirectory(EtcdDirectory parent, String prefix) {
        this.name = parent.name + "+" + COUNT.incrementAndGet();
        this.prefix = prefix;
        this.connection = parent.connection;
        connection.retain();
        this.keys = new KeyReader(connection);
        this.dispatcher = new DirectoryDispatcher(name);
    }

    /**
     * A directory of another deployment ({@code prefix}) on this one's connection: one connection to
     * etcd, one watch stream and one set of client threads for every prefix a process uses. Each
     * directory has its own publications, watches and callback thread, and closes on its own; the
     * connection closes with the last of them. Its TLS and user are this one's (and were checked
     * here); a user must be allowed the other prefix too.
     *
     * @throws IllegalArgumentException if the prefix is malformed
     * @throws IllegalStateException if this directory is closed
     */
    public EtcdDirectory forPrefix(String prefix) {
        DirectoryLimits.checkPrefix(prefix);
        ensureOpen();
        return new EtcdDirectory(this, prefix);
    }

    /**
     * A builder for a client of the etcd cluster at {@code endpoints}
     * ({@code etcd://HOST:PORT[,HOST:PORT...]} or {@code http://HOST:PORT[,http://HOST:PORT...]}).
     *
     * @throws IllegalArgumentException naming the endpoints if they are malformed
     */
    public static Builder builder(String endpoints) {
        return new Builder(EtcdEndpoints.parse(endpoints));
    }

    /** A builder for a client of the etcd cluster at {@code endpoints}. */
    public static Builder builder(EtcdEndpoints endpoints) {
        return new Builder(Objects.requireNonNull(endpoints, "endpoints"));
    }

    /**
     * A builder configured as etcdctl is by this process's environment: the endpoints from
     * {@code ETCDCTL_ENDPOINTS}, the rest as {@link Builder#environment(Map)} reads it.
     *
     * @throws IllegalArgumentException naming the variable that is missing or malformed
     */
    public static Builder fromEnvironment() {
        return fromEnvironment(System.getenv());
    }

    /**
     * A builder configured by {@code environment} as etcdctl would be: the endpoints from
     * {@code ETCDCTL_ENDPOINTS}, the rest as {@link Builder#environment(Map)} reads it.
     *
     * @throws IllegalArgumentException naming the variable that is missing or malformed
     */
    public static Builder fromEnvironment(Map<String, String> environment) {
        String endpoints = environment.get("ETCDCTL_ENDPOINTS");
        if (endpoints == null || endpoints.isBlank()) {
            throw new IllegalArgumentException("ETCDCTL_ENDPOINTS is not set: it names the etcd endpoints"
                    + " (https://HOST:PORT[,https://HOST:PORT...])");
        }
        EtcdEndpoints parsed;
        try {
            parsed = EtcdEndpoints.parse(endpoints);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("ETCDCTL_ENDPOINTS: " + e.getMessage(), e);
        }
        return builder(parsed).environment(environment);
    }

    /** The client's name, as in its threads' names ({@code blockxfer-directory-<name>}). */
    public String name() {
        return name;
    }

    /** The endpoints this client connects to. */
    public EtcdEndpoints endpoints() {
        return connection.endpoints();
    }

    @Override
    public String prefix() {
        return prefix;
    }

    @Override
    public Duration operationTimeout() {
        return connection.operationTimeout();
    }

    @Override
    public Publication publish(String memberId, @Nullable String group, LongFunction<byte[]> value, Duration ttl,
            PublicationListener listener) {
        DirectoryLimits.checkMemberId(memberId);
        String groupKey = group == null ? null : DirectoryScope.groupKey(prefix, group, memberId);
        Objects.requireNonNull(value, "value");
        DirectoryLimits.checkTtl(ttl);
        Objects.requireNonNull(listener, "listener");
        ensureOpen();
        LeasedEntry entry = LeasedEntry.publish(connection, dispatcher, publications::remove, memberId,
                prefix + memberId, groupKey, value, ttl, listener);
        publications.add(entry);
        if (closed) {
            // closed while publishing: close() may have missed it
            var unused = entry.closeAsync();
            throw closedException();
        }
        entry.start();
        return entry;
    }

    @Override
    public DirectoryWatch watch(DirectoryScope scope, DirectoryListener listener) {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(listener, "listener");
        ensureOpen();
        RangeWatch watch = new RangeWatch(connection, prefix, scope, dispatcher, listener, watches::remove);
        watches.add(watch);
        watch.start(connection.deadline());
        if (closed) {
            watch.close();
            throw closedException();
        }
        return watch;
    }

    @Override
    public CompletableFuture<DirectorySnapshot> read(DirectoryScope scope) {
        Objects.requireNonNull(scope, "scope");
        ensureOpen();
        String what = "read " + scope + " under " + prefix;
        if (scope.isSingleKey()) {
            return keys.read(scope.start(prefix), what);
        }
        return RangeLister.read(connection, scope.start(prefix), scope.end(prefix), what);
    }

    @Override
    public DirectoryWatch watch(DirectoryScope scope, DirectorySnapshot from, DirectoryListener listener) {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(listener, "listener");
        ensureOpen();
        RangeWatch watch = new RangeWatch(connection, prefix, scope, dispatcher, listener, watches::remove);
        watches.add(watch);
        watch.startFrom(from);
        if (closed) {
            watch.close();
            throw closedException();
        }
        return watch;
    }

    /**
     * Revokes every lease of this client (waiting for etcd at most the operation timeout in all),
     * stops every watch and releases the connection and the threads. Idempotent; never throws.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        List<CompletableFuture<Void>> revokes = new ArrayList<>();
        for (LeasedEntry entry : List.copyOf(publications)) {
            revokes.add(entry.closeAsync());
        }
        try {
            CompletableFuture.allOf(revokes.toArray(CompletableFuture[]::new))
                    .get(connection.operationTimeout().toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException | ExecutionException e) {
            // unreachable: the leases expire by themselves
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (RangeWatch watch : List.copyOf(watches)) {
            watch.close();
        }
        connection.close();
        dispatcher.close();
    }

    /**
     * Stops this client as a killed process would, for fault tests: no goodbye (its leases are
     * left to expire), no more callbacks, closed.
     */
    void abandon() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        dispatcher.close();
        for (RangeWatch watch : List.copyOf(watches)) {
            watch.abandon();
        }
        for (LeasedEntry entry : List.copyOf(publications)) {
            entry.abandon();
        }
        connection.close();
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosed() {
        return closed;
    }

    private void ensureOpen() {
        if (closed) {
            throw closedException();
        }
    }

    private IllegalStateException closedException() {
        return new IllegalStateException(this + " is closed");
    }

    /** "etcd directory NAME etcd://HOST:PORT,... /PREFIX/": names the endpoints and the prefix. */
    @Override
    public String toString() {
        return describe(name, connection.endpoints(), prefix);
    }

    private static String describe(String name, EtcdEndpoints endpoints, String prefix) {
        return "etcd directory " + name + " " + endpoints + " " + prefix;
    }

    /**
     * Builds an {@link EtcdDirectory}. Without TLS or a user nothing is contacted until the first
     * call. With TLS or a user, {@link #build()} checks them against etcd within the operation
     * timeout, so that a misconfiguration is refused there: a TLS handshake with every endpoint, a
     * read of the prefix, and a write check under it. When etcd cannot be reached then (it may be
     * down while a process starts), the build succeeds with a warning and the first call checks.
     *
     * <p>TLS and authentication are configured as etcdctl's are: {@link #trustedCa} (etcdctl's
     * {@code --cacert}), {@link #clientCertificate} ({@code --cert}, {@code --key}), {@link #user}
     * and {@link #password} or {@link #passwordFile} ({@code --user}, {@code --password}),
     * {@link #insecureSkipTlsVerify} ({@code --insecure-skip-tls-verify}), or all at once from
     * etcdctl's {@code ETCDCTL_*} variables ({@link #environment(Map)}). TLS is on with
     * {@code https://} endpoints, and with {@code etcd://} (or scheme-less) endpoints when a CA, a
     * client certificate or {@code insecureSkipTlsVerify} is given; {@code http://} endpoints with
     * TLS settings are refused. The files are read again when they change (see the module README,
     * "Certificate rotation").
     *
     * <p><b>Thread safety:</b> not thread-safe; build on one thread.
     */
    public static final class Builder {
        private final EtcdEndpoints endpoints;
        private String prefix = DEFAULT_PREFIX;
        private Duration operationTimeout = DEFAULT_OPERATION_TIMEOUT;
        private @Nullable String name;
        private @Nullable Path trustedCa;
        private @Nullable Path clientCertificate;
        private @Nullable Path clientKey;
        private boolean insecureSkipTlsVerify;
        private @Nullable String user;
        private char @Nullable [] password;
        private @Nullable Path passwordFile;

        private Builder(EtcdEndpoints endpoints) {
            this.endpoints = endpoints;
        }

        /** The endpoints the client will connect to. */
        public EtcdEndpoints endpoints() {
            return endpoints;
        }

        /**
         * The deployment's prefix (see {@link DirectoryLimits}); {@value EtcdDirectory#DEFAULT_PREFIX}
         * unless set.
         *
         * @throws IllegalArgumentException naming the prefix if it is malformed
         */
        public Builder prefix(String prefix) {
            this.prefix = DirectoryLimits.checkPrefix(prefix);
            return this;
        }

        /**
         * How long a call waits for etcd before it fails with a
         * {@link io.blockxfer.directory.DirectoryUnavailableException}; 5 s unless set.
         *
         * @throws IllegalArgumentException if it is outside 100 ms to 5 min
         */
        public Builder operationTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.compareTo(MIN_OPERATION_TIMEOUT) < 0 || timeout.compareTo(MAX_OPERATION_TIMEOUT) > 0) {
                throw new IllegalArgumentException("operation timeout " + timeout + " must be from "
                        + MIN_OPERATION_TIMEOUT.toMillis() + " ms to " + MAX_OPERATION_TIMEOUT.toMinutes() + " min");
            }
            this.operationTimeout = timeout;
            return this;
        }

        /**
         * A name for threads and messages ({@code blockxfer-directory-<name>}); {@code etcd-<n>}
         * unless set.
         *
         * @throws IllegalArgumentException if it is blank or longer than 64 chars
         */
        public Builder name(String name) {
            Objects.requireNonNull(name, "name");
            if (name.isBlank() || name.length() > 64) {
                throw new IllegalArgumentException("name must be 1-64 chars, not blank: '" + name + "'");
            }
            this.name = name;
            return this;
        }

        /**
         * The CA bundle (PEM, one or more certificates) that etcd's certificate must be signed by
         * (etcdctl's {@code --cacert}); the JDK's default CAs unless set. Turns TLS on.
         */
        public Builder trustedCa(Path caFile) {
            this.trustedCa = Objects.requireNonNull(caFile, "caFile");
            return this;
        }

        /**
         * This client's certificate (PEM, with its intermediate CAs if any) and private key (PEM:
         * PKCS#1, PKCS#8 or SEC1; RSA or EC; unencrypted), for etcd's {@code --client-cert-auth}
         * (etcdctl's {@code --cert} and {@code --key}). Turns TLS on.
         */
        public Builder clientCertificate(Path certFile, Path keyFile) {
            this.clientCertificate = Objects.requireNonNull(certFile, "certFile");
            this.clientKey = Objects.requireNonNull(keyFile, "keyFile");
            return this;
        }

        /**
         * Whether to skip checking etcd's certificate (its CA, its validity and its names; etcdctl's
         * {@code --insecure-skip-tls-verify}); off unless set. For tests only: {@link #build()} logs a
         * warning that says it is on. Turns TLS on.
         */
        public Builder insecureSkipTlsVerify(boolean skip) {
            this.insecureSkipTlsVerify = skip;
            return this;
        }

        /**
         * The etcd user to authenticate as (etcdctl's {@code --user}), with {@link #password} or
         * {@link #passwordFile}.
         *
         * @throws IllegalArgumentException if it is empty or holds a ':'
         */
        public Builder user(String user) {
            Objects.requireNonNull(user, "user");
            if (user.isEmpty() || user.indexOf(':') >= 0) {
                throw new IllegalArgumentException("etcd user must be non-empty and hold no ':': '" + user + "'");
            }
            this.user = user;
            return this;
        }

        /** The user's password (copied; the caller may clear its array). */
        public Builder password(char[] password) {
            this.password = Objects.requireNonNull(password, "password").clone();
            this.passwordFile = null;
            return this;
        }

        /**
         * A file holding the user's password (its first line, without the line end), read by
         * {@link #build()}; instead of {@link #password}.
         */
        public Builder passwordFile(Path file) {
            this.passwordFile = Objects.requireNonNull(file, "file");
            this.password = null;
            return this;
        }

        /**
         * Applies etcdctl's variables that are set in {@code environment} (those unset leave the
         * builder as it is): {@code ETCDCTL_CACERT}, {@code ETCDCTL_CERT} with {@code ETCDCTL_KEY},
         * {@code ETCDCTL_USER} ({@code name:password}, or {@code name} with
         * {@code ETCDCTL_PASSWORD}), {@code ETCDCTL_INSECURE_SKIP_TLS_VERIFY} ({@code true} or
         * {@code false}). {@code ETCDCTL_ENDPOINTS} is read by {@link EtcdDirectory#fromEnvironment()}.
         *
         * @throws IllegalArgumentException naming the variable that is malformed or lacks its pair
         */
        public Builder environment(Map<String, String> environment) {
            EtcdctlVariables v = EtcdctlVariables.read(environment);
            Path ca = v.caFile();
            Path cert = v.certFile();
            Path key = v.keyFile();
            String name = v.user();
            char[] secret = v.password();
            Boolean insecure = v.insecureSkipTlsVerify();
            if (ca != null) {
                trustedCa(ca);
            }
            if (cert != null && key != null) {
                clientCertificate(cert, key);
            }
            if (name != null && secret != null) {
                user(name);
                password(secret);
                java.util.Arrays.fill(secret, '\0');
            }
            if (insecure != null) {
                insecureSkipTlsVerify(insecure);
            }
            return this;
        }

        /**
         * The client. Without TLS or a user it connects on its first call; with either, it checks
         * them against etcd first, within the operation timeout (when etcd cannot be reached, the
         * check is left to the first call, with a warning).
         *
         * @throws IllegalArgumentException when the settings contradict each other (TLS settings with
         *     {@code http://} endpoints, a user without a password, a password without a user) or the
         *     password file cannot be read
         * @throws EtcdTlsException when a certificate, key or CA file cannot be used, the client
         *     certificate is out of its validity, or a handshake with an endpoint fails
         * @throws EtcdAuthException when etcd refuses the user, or its roles lack read or write on
         *     the prefix
         */
        public EtcdDirectory build() {
            boolean tlsSettings = trustedCa != null || clientCertificate != null || insecureSkipTlsVerify;
            if (tlsSettings && endpoints.scheme() == EtcdEndpoints.Scheme.HTTP) {
                throw new IllegalArgumentException("etcd endpoints " + endpoints + " are plain text (http://) but TLS"
                        + " settings are given (a CA, a client certificate or insecureSkipTlsVerify): write them"
                        + " https://HOST:PORT");
            }
            byte[] secret = secret();
            if (user != null && secret == null) {
                throw new IllegalArgumentException("etcd user '" + user + "' has no password: give password(...) or"
                        + " passwordFile(...)");
            }
            if (user == null && secret != null) {
                throw new IllegalArgumentException("an etcd password is given without a user");
            }
            boolean tlsOn = tlsSettings || endpoints.scheme() == EtcdEndpoints.Scheme.HTTPS;
            EtcdTls tls = tlsOn ? new EtcdTls(new EtcdTls.Settings(trustedCa, clientCertificate, clientKey,
                    insecureSkipTlsVerify)) : null;
            if (insecureSkipTlsVerify) {
                LOG.log(Level.WARNING, "TLS VERIFICATION IS OFF for etcd " + endpoints + " (insecureSkipTlsVerify,"
                        + " ETCDCTL_INSECURE_SKIP_TLS_VERIFY): etcd's certificate is not checked, so anyone between"
                        + " this process and etcd can pose as etcd and read or change the directory. For tests only.");
            }
            if (user != null && !tlsOn) {
                LOG.log(Level.WARNING, "etcd user '" + user + "' authenticates over plain text to " + endpoints
                        + ": its password can be read on the network; use https:// endpoints");
            }
            try {
                return new EtcdDirectory(this, tls, user, secret);
            } finally {
                if (secret != null) {
                    Arrays.fill(secret, (byte) 0);
                }
            }
        }

        /** The password as UTF-8 bytes, from {@link #password} or the file; null without one. */
        private byte @Nullable [] secret() {
            Path file = passwordFile;
            if (file != null) {
                return EtcdctlVariables.passwordFile(file);
            }
            char[] chars = password;
            return chars == null ? null : new String(chars).getBytes(StandardCharsets.UTF_8);
        }
    }
}
