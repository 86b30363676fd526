package io.blockxfer.cli.internal.remote;

import io.blockxfer.cli.internal.CliException;
import io.blockxfer.cli.internal.HostPort;
import io.blockxfer.directory.Directory;
import io.blockxfer.directory.DirectoryEntry;
import io.blockxfer.directory.DirectoryEvent;
import io.blockxfer.directory.DirectoryException;
import io.blockxfer.directory.DirectoryLimits;
import io.blockxfer.directory.DirectoryListener;
import io.blockxfer.directory.DirectoryScope;
import io.blockxfer.directory.DirectorySnapshot;
import io.blockxfer.directory.DirectoryWatch;
import io.blockxfer.directory.MalformedEntryException;
import io.blockxfer.directory.MemberEntry;
import io.blockxfer.directory.Publication;
import io.blockxfer.directory.etcd.EtcdDirectory;
import io.blockxfer.directory.etcd.EtcdEndpoints;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.UnauthenticatedPeerException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The bench's place in a directory ({@code --directory}): a bench server publishes a
 * {@link ServerEntry} there ({@link #announce}), and an initiator lists the servers published
 * there and picks one ({@link #list}, {@link Listing#choose}); with a name ({@code --connect
 * --target NAME}) it reads that server's key alone, as a membership resolves one member on demand.
 *
 * <p><b>What is published.</b> One entry per server, under its name ({@code --target}, by default
 * its host name) directly below the prefix ({@value #DEFAULT_PREFIX} unless {@code --prefix} says
 * otherwise), attached to a lease of {@link #TTL} that the directory keeps alive while the server
 * runs and that the server revokes when it stops. The value is a {@link MemberEntry}, the
 * directory's checked envelope (version, member id, publication epoch, CRC-32C, and with a
 * deployment key an HMAC under the key ring), whose payload is the server's {@link ServerEntry}
 * JSON instead of a transport's descriptor: the bench opens its targets per point, at the block
 * size and count the initiator asks for, so no target exists before an initiator connects; the
 * targets' descriptors travel, signed, over the control channel as without a directory.
 *
 * <p><b>Thread safety:</b> thread-safe (immutable); an {@link Announcement} is thread-safe too.
 */
public final class BenchDirectory {

    /** The prefix unless {@code --prefix} is given. */
    public static final String DEFAULT_PREFIX = "/blockxfer/bench/";
    /** The lease of a server's entry: a server that dies without a goodbye is gone from listings after it. */
    public static final Duration TTL = Duration.ofSeconds(10);
    /** How long a call waits for the directory. */
    public static final Duration OPERATION_TIMEOUT = Duration.ofSeconds(5);
    private static final long REPUBLISH_PAUSE_MILLIS = 1_000;

    private final Supplier<Directory> connector;
    private final String where;
    private final List<String> endpoints;

    /**
     * A directory reached through {@code connector}, described as {@code where} in messages
     * ({@code etcd://HOST:PORT under /PREFIX/}); {@code endpoints} are {@code HOST:PORT}s this host
     * reaches the directory at (see {@link #advertised}), empty when there are none.
     */
    BenchDirectory(Supplier<Directory> connector, String where, List<String> endpoints) {
        this.connector = connector;
        this.where = where;
        this.endpoints = List.copyOf(endpoints);
    }

    /**
     * How to reach a secured etcd: the {@code --etcd-*} options (each null when not given) and the
     * environment whose etcdctl variables ({@code ETCDCTL_*}) apply where an option is not given.
     */
    public record EtcdAccess(@Nullable Path caFile, @Nullable Path certFile, @Nullable Path keyFile,
            @Nullable String user, @Nullable Path passwordFile, boolean insecureSkipTlsVerify,
            Map<String, String> environment) {
        /** Plain etcd, as etcdctl without settings: no option, no variable. */
        public static final EtcdAccess NONE = new EtcdAccess(null, null, null, null, null, false, Map.of());
    }

    /**
     * The etcd cluster at {@code endpoints} ({@code etcd://HOST:PORT[,HOST:PORT...]}), deployment
     * {@code prefix}, without TLS or a user.
     *
     * @throws CliException a usage error naming the option when either is malformed
     */
    public static BenchDirectory etcd(String endpoints, String prefix) {
        return etcd(endpoints, prefix, EtcdAccess.NONE);
    }

    /**
     * The etcd cluster at {@code endpoints} (etcdctl's {@code ETCDCTL_ENDPOINTS} when empty),
     * deployment {@code prefix}, reached as {@code access} says (TLS, a user).
     *
     * @throws CliException a usage error naming the option or variable that is malformed
     */
    public static BenchDirectory etcd(String endpoints, String prefix, EtcdAccess access) {
        try {
            DirectoryLimits.checkPrefix(prefix);
        } catch (IllegalArgumentException e) {
            throw CliException.usage("--prefix: " + e.getMessage());
        }
        EtcdDirectory.Builder builder;
        if (endpoints.isBlank()) {
            try {
                builder = EtcdDirectory.fromEnvironment(access.environment());
            } catch (IllegalArgumentException e) {
                throw CliException.usage("--directory without ENDPOINTS: " + e.getMessage());
            }
        } else {
            EtcdEndpoints parsed;
            try {
                parsed = EtcdEndpoints.parse(endpoints);
            } catch (IllegalArgumentException e) {
                throw CliException.usage("--directory: " + e.getMessage());
            }
            try {
                builder = EtcdDirectory.builder(parsed).environment(access.environment());
            } catch (IllegalArgumentException e) {
                throw CliException.usage(String.valueOf(e.getMessage()));
            }
        }
        Path ca = access.caFile();
        Path cert = access.certFile();
        Path key = access.keyFile();
        String user = access.user();
        Path passwordFile = access.passwordFile();
        if (ca != null) {
            builder.trustedCa(ca);
        }
        if (cert != null && key != null) {
            builder.clientCertificate(cert, key);
        }
        try {
            if (user != null) {
                int colon = user.indexOf(':');
                builder.user(colon < 0 ? user : user.substring(0, colon));
                if (colon >= 0) {
                    builder.password(user.substring(colon + 1).toCharArray());
                }
            }
        } catch (IllegalArgumentException e) {
            throw CliException.usage("--etcd-user: " + e.getMessage());
        }
        if (passwordFile != null) {
            builder.passwordFile(passwordFile);
        }
        if (access.insecureSkipTlsVerify()) {
            builder.insecureSkipTlsVerify(true);
        }
        builder.prefix(prefix).name("bench").operationTimeout(OPERATION_TIMEOUT);
        EtcdEndpoints parsed = builder.endpoints();
        return new BenchDirectory(() -> {
            try {
                return builder.build();
            } catch (IllegalArgumentException e) {
                throw CliException.usage("--directory: " + e.getMessage());
            }
        }, parsed + " under " + prefix, parsed.hostPorts());
    }

    /** {@code etcd://HOST:PORT under /PREFIX/}, for messages. */
    public String where() {
        return where;
    }

    /**
     * The control address to publish for a server bound to {@code bound}: {@code advertise}
     * ({@code HOST[:PORT]}, the bound port when it names none) when given; else the bound address
     * when it is a specific one; else, for a wildcard address, the local address this host reaches
     * the directory from (the first endpoint that accepts a connection), which is reachable from
     * the directory's network; else this host's name.
     *
     * @throws CliException a usage error when {@code advertise} is malformed
     */
    public HostPort advertised(InetSocketAddress bound, @Nullable String advertise) {
        if (advertise != null) {
            try {
                HostPort a = HostPort.parse(advertise, bound.getPort());
                if (a.port() == 0) {
                    throw new IllegalArgumentException("bad address '" + advertise + "': port 0 cannot be reached");
                }
                return a;
            } catch (IllegalArgumentException e) {
                throw CliException.usage("--advertise: " + e.getMessage());
            }
        }
        InetAddress address = bound.getAddress();
        if (address != null && !address.isAnyLocalAddress()) {
            return new HostPort(address.getHostAddress(), bound.getPort());
        }
        for (String endpoint : endpoints) {
            HostPort e = HostPort.parse(endpoint, 0);
            try (Socket s = new Socket()) {
                s.connect(e.resolve(), 2_000);
                return new HostPort(s.getLocalAddress().getHostAddress(), bound.getPort());
            } catch (IOException | IllegalArgumentException ignored) {
                // the next endpoint; publishing says when none answers
            }
        }
        try {
            return new HostPort(InetAddress.getLocalHost().getHostName(), bound.getPort());
        } catch (IOException e) {
            return new HostPort("localhost", bound.getPort());
        }
    }

    /**
     * Publishes {@code entry}, signed with {@code ring} when present, and keeps it published (again
     * with a new epoch whenever its lease is lost) until the announcement is closed. A valid entry
     * of another server under the same name is not replaced: that is an error; an entry of an
     * earlier run of this server (the same control address) or one that is not a valid entry is.
     *
     * @param log told, one line at a time, when the entry is lost and published again
     * @throws CliException when the directory cannot be reached within {@link #OPERATION_TIMEOUT},
     *     or the name is taken
     */
    public Announcement announce(ServerEntry entry, Optional<DeploymentKeyRing> ring, Consumer<String> log) {
        Directory directory;
        try {
            directory = connector.get();
        } catch (DirectoryException e) {
            throw unavailable("publish this bench server", e);
        }
        try {
            Listing now = list(directory, ring, DirectoryScope.member(entry.name()));
            for (ServerEntry other : now.servers()) {
                if (other.name().equals(entry.name()) && !other.control().equals(entry.control())) {
                    throw new CliException("a bench server named '" + entry.name() + "' is already published in "
                            + where + " (" + other.describe() + "): stop it, or publish this one under another name"
                            + " with --target NAME");
                }
            }
            Announcement a = new Announcement(directory, entry, ring.orElse(null), log);
            a.publish();
            return a;
        } catch (DirectoryException e) {
            directory.close();
            throw unavailable("publish this bench server", e);
        } catch (RuntimeException e) {
            directory.close();
            throw e;
        }
    }

    /**
     * The bench servers published now, checked with {@code ring} when present.
     *
     * @throws CliException when the directory cannot be reached within {@link #OPERATION_TIMEOUT}
     */
    public Listing list(Optional<DeploymentKeyRing> ring) {
        return list(ring, null);
    }

    /**
     * The bench server published as {@code target} (one read of its key, the way a member is
     * resolved on demand: no other server's entry is read), or, when {@code target} is null, every
     * server published now; checked with {@code ring} when present.
     *
     * @throws CliException when the directory cannot be reached within {@link #OPERATION_TIMEOUT}
     */
    public Listing list(Optional<DeploymentKeyRing> ring, @Nullable String target) {
        try (Directory directory = connector.get()) {
            return list(directory, ring, target == null ? DirectoryScope.members() : DirectoryScope.member(target));
        } catch (DirectoryException e) {
            throw unavailable(target == null ? "list the bench servers" : "read bench server '" + target + "'", e);
        }
    }

    private Listing list(Directory directory, Optional<DeploymentKeyRing> ring, DirectoryScope scope) {
        CompletableFuture<DirectorySnapshot> snapshot = new CompletableFuture<>();
        DirectorySnapshot s;
        DirectoryWatch watch = directory.watch(scope, new DirectoryListener() {
            @Override
            public void snapshot(DirectorySnapshot listed) {
                snapshot.complete(listed);
            }

            @Override
            public void changed(DirectoryEvent event) {
                // one listing is all it takes
            }
        });
        try (watch) {
            s = snapshot.get(directory.operationTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new CliException("the listing of " + where + " did not arrive within "
                    + directory.operationTimeout().toMillis() + " ms");
        } catch (ExecutionException e) {
            throw new IllegalStateException("a snapshot future failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliException("interrupted while listing " + where);
        }
        List<ServerEntry> servers = new ArrayList<>();
        List<Refused> refused = new ArrayList<>();
        for (DirectoryEntry e : s.entries()) {
            Optional<String> name = DirectoryLimits.memberId(directory.prefix(), e.key());
            if (name.isEmpty()) {
                refused.add(new Refused(e.key(), "its key names no server directly under " + directory.prefix()));
                continue;
            }
            try {
                servers.add(read(name.get(), e.value(), ring.orElse(null)));
            } catch (MalformedEntryException | UnauthenticatedPeerException | ProtocolException ex) {
                refused.add(new Refused(name.get(), String.valueOf(ex.getMessage())));
            }
        }
        return new Listing(where, servers, refused);
    }

    /** Checks and reads the entry of the server published as {@code name}. */
    static ServerEntry read(String name, byte[] value, @Nullable DeploymentKeyRing ring) throws ProtocolException {
        MemberEntry entry = MemberEntry.decode(value, ring);
        if (!entry.memberId().equals(name)) {
            throw new ProtocolException("the entry under '" + name + "' is the one of '" + entry.memberId() + "'");
        }
        return ServerEntry.parse(name, entry.descriptor());
    }

    private CliException unavailable(String what, DirectoryException e) {
        return new CliException("could not " + what + " in " + where + ": " + e.getMessage());
    }

    /**
     * An entry found in the directory that is not a usable bench server's, with why.
     *
     * <p><b>Thread safety:</b> immutable.
     *
     * @param name the name its key gives (or the key, when it names none)
     * @param reason why it was refused
     */
    public record Refused(String name, String reason) {
    }

    /**
     * The bench servers published in a directory at one moment, and the entries refused.
     *
     * <p><b>Thread safety:</b> immutable.
     *
     * @param where the directory, for messages
     * @param servers the servers, in key order
     * @param refused the entries refused, with why
     */
    public record Listing(String where, List<ServerEntry> servers, List<Refused> refused) {

        /** Copies the lists. */
        public Listing {
            servers = List.copyOf(servers);
            refused = List.copyOf(refused);
        }

        /**
         * The server named {@code target}, or the only one when {@code target} is null.
         *
         * @throws CliException (exit status 1) naming the servers there are, when none fits
         */
        public ServerEntry choose(@Nullable String target) {
            if (target != null) {
                for (ServerEntry s : servers) {
                    if (s.name().equals(target)) {
                        return usable(s);
                    }
                }
                for (Refused r : refused) {
                    if (r.name().equals(target)) {
                        throw new CliException("the entry of bench server '" + target + "' in " + where
                                + " is refused: " + r.reason());
                    }
                }
                throw failure("no bench server '" + target + "' is published in " + where
                        + (servers.isEmpty() ? "" : "; published: " + names()));
            }
            if (servers.size() == 1) {
                return usable(servers.getFirst());
            }
            if (servers.isEmpty()) {
                throw failure("no bench server is published in " + where + " (start one with 'bench --serve"
                        + " --directory ...')");
            }
            throw failure(servers.size() + " bench servers are published in " + where + ": " + names()
                    + "; choose one with --target NAME");
        }

        private static ServerEntry usable(ServerEntry s) {
            if (s.protocol() != ControlProtocol.VERSION) {
                throw new CliException("bench server '" + s.name() + "' speaks bench protocol " + s.protocol()
                        + ", this side " + ControlProtocol.VERSION + ": use the same blockxfer version on both hosts");
            }
            return s;
        }

        private String names() {
            return servers.stream().map(ServerEntry::name).collect(Collectors.joining(", "));
        }

        /** A failure whose detail (under {@code --verbose}) lists every server and refused entry. */
        private CliException failure(String message) {
            StringBuilder sb = new StringBuilder();
            servers.forEach(s -> sb.append(sb.isEmpty() ? "" : "\n").append("  ").append(s.describe()));
            refused.forEach(r -> sb.append(sb.isEmpty() ? "" : "\n").append("  ").append(r.name())
                    .append(": refused: ").append(r.reason()));
            String suffix = refused.isEmpty() ? "" : " (" + refused.size() + " entr" + (refused.size() == 1 ? "y was"
                    : "ies were") + " refused; --verbose says why)";
            return new CliException(message + suffix).withDetail(sb.isEmpty() ? null : sb.toString());
        }
    }

    /**
     * A server's entry, kept published until {@link #close()}: published again, with a new epoch,
     * whenever its lease is lost (etcd was unreachable for longer than the TTL, or the lease was
     * revoked), tried every second until it succeeds. Closing it revokes the lease: the entry is
     * gone at once (the goodbye).
     *
     * <p><b>Thread safety:</b> thread-safe.
     */
    public static final class Announcement implements AutoCloseable {

        private final Directory directory;
        private final ServerEntry entry;
        private final @Nullable DeploymentKeyRing ring;
        private final Consumer<String> log;
        private final Thread republisher;
        private @Nullable Publication current;
        private long epoch;
        private boolean lost;
        private boolean closed;

        private Announcement(Directory directory, ServerEntry entry, @Nullable DeploymentKeyRing ring,
                Consumer<String> log) {
            this.directory = directory;
            this.entry = entry;
            this.ring = ring;
            this.log = log;
            this.republisher = Thread.ofPlatform().daemon().name("bench-directory-" + entry.name())
                    .unstarted(this::republishLoop);
        }

        /** The entry published. */
        public ServerEntry entry() {
            return entry;
        }

        /** Publishes the first time (on the caller's thread), then starts watching for losses. */
        private void publish() {
            publishOnce();
            republisher.start();
        }

        private void publishOnce() {
            long next;
            Publication before;
            synchronized (this) {
                next = Math.max(TimeUnit.MILLISECONDS.toMicros(System.currentTimeMillis()), epoch + 1);
                before = current;
            }
            if (before != null) {
                before.close(); // a lost lease that etcd still holds is revoked; otherwise nothing happens
            }
            byte[] value = new MemberEntry(entry.name(), next, entry.json()).encode(ring);
            Publication p = directory.publish(entry.name(), value, TTL, (publication, reason) -> lost(reason));
            synchronized (this) {
                epoch = next;
                current = p;
            }
        }

        private synchronized void lost(String reason) {
            if (!closed) {
                log.accept("the directory entry's lease was lost (" + reason + "); publishing it again");
                lost = true;
                notifyAll();
            }
        }

        private void republishLoop() {
            while (true) {
                synchronized (this) {
                    while (!lost && !closed) {
                        try {
                            wait();
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                    if (closed) {
                        return;
                    }
                }
                try {
                    publishOnce();
                    synchronized (this) {
                        lost = false;
                    }
                    log.accept("published again in the directory");
                } catch (DirectoryException | IllegalStateException e) {
                    if (isClosed()) {
                        return;
                    }
                    log.accept("publishing again failed (" + e.getMessage() + "); trying again in 1 s");
                    try {
                        Thread.sleep(REPUBLISH_PAUSE_MILLIS);
                    } catch (InterruptedException ie) {
                        return;
                    }
                }
            }
        }

        private synchronized boolean isClosed() {
            return closed;
        }

        /** Revokes the entry's lease (its entry is deleted at once) and disconnects; idempotent. */
        @Override
        public void close() {
            synchronized (this) {
                if (closed) {
                    return;
                }
                closed = true;
                notifyAll();
            }
            republisher.interrupt();
            directory.close();
        }
    }
}
