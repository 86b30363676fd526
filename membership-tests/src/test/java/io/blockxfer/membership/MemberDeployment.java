package io.blockxfer.membership;

import static org.junit.jupiter.api.Assertions.fail;

import io.blockxfer.directory.DirectoryUnavailableException;
import io.blockxfer.directory.PublicationListener;
import io.blockxfer.directory.etcd.EtcdDirectory;
import io.blockxfer.tck.TckEnvironment;
import io.blockxfer.tck.process.EtcdCluster;
import io.blockxfer.tck.process.UcxShmFiles;
import io.blockxfer.transport.ProviderInfo;
import io.blockxfer.transport.Transports;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;

/**
 * One deployment of {@link MemberMain} processes on a shared etcd cluster: its backend, its own
 * prefix, the TTL and flap interval its members use, its key ring, and the member processes it
 * started. {@link #close()} ends every member (by pid: goodbye, else {@code SIGKILL}), then removes
 * the UCX shared-memory files they left and fails if any is still there.
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
final class MemberDeployment implements AutoCloseable {

    /** How long a member may take to start: a JVM, a native backend and an etcd client, on a loaded host. */
    static final Duration START = Duration.ofSeconds(90);
    private static final AtomicInteger COUNT = new AtomicInteger();

    private final String backend;
    private final EtcdCluster cluster;
    private final String prefix;
    private final Duration ttl;
    private final Duration flap;
    private final String keyHex;
    private final Map<String, MemberProcess> members = new LinkedHashMap<>();
    private final List<MemberProcess> all = new ArrayList<>();
    private @Nullable EtcdDirectory writer;
    private @Nullable Map<String, String> etcdEnvironment;
    private final String endpoints;

    private MemberDeployment(String backend, EtcdCluster cluster, String endpoints, Duration ttl, Duration flap) {
        this.backend = backend;
        this.cluster = cluster;
        this.endpoints = endpoints;
        this.prefix = PREFIXES + backend + "-" + COUNT.incrementAndGet() + "-" + ProcessHandle.current().pid()
                + "/";
        this.ttl = ttl;
        this.flap = flap;
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        this.keyHex = HexFormat.of().formatHex(key);
    }

    /**
     * A deployment of {@code backend} members on {@code cluster}; skips the calling test where the
     * backend cannot run here, or fails it where {@code blockxfer.tck.require} names the backend.
     */
    static MemberDeployment of(String backend, EtcdCluster cluster, Duration ttl, Duration flap) {
        return of(backend, cluster, cluster.endpoints(), ttl, flap);
    }

    /**
     * As {@link #of(String, EtcdCluster, Duration, Duration)}, the members reaching the cluster at
     * {@code endpoints} (etcd's gRPC proxy in front of it, say).
     */
    static MemberDeployment of(String backend, EtcdCluster cluster, String endpoints, Duration ttl, Duration flap) {
        requireBackend(backend);
        return new MemberDeployment(backend, cluster, endpoints, ttl, flap);
    }

    /**
     * Skips the calling test where {@code backend} cannot run here, or fails it where
     * {@code blockxfer.tck.require} names the backend.
     */
    static void requireBackend(String backend) {
        ProviderInfo info = Transports.providers().stream().filter(p -> p.name().equals(backend)).findFirst()
                .orElse(null);
        if (info != null && info.isAvailable()) {
            return;
        }
        String cause = backend + " is unavailable: " + (info == null ? "no provider on the class path"
                : info.availability().cause());
        if (TckEnvironment.fromSystem().requires(backend)) {
            fail(cause + " (required by blockxfer.tck.require)");
        }
        Assumptions.abort(cause);
    }

    String backend() {
        return backend;
    }

    /** Where the members reach etcd: its members, or a proxy in front of them. */
    String endpoints() {
        return endpoints;
    }

    /** The deployments' etcd user, whose role may read and write {@link #PREFIXES} (with authentication). */
    static final String USER = "faults";
    /** Its password. */
    static final String PASSWORD = "faults-password";
    /** The prefix every deployment's prefix is under. */
    static final String PREFIXES = "/blockxfer-faults/";

    /**
     * etcdctl's variables for the members and the test's writer: with a cluster with TLS or
     * authentication, the CA, a client certificate and the deployments' user; empty otherwise.
     */
    synchronized Map<String, String> etcdEnvironment() {
        if (cluster.tls() == null && cluster.rootPassword() == null) {
            return Map.of();
        }
        if (etcdEnvironment == null) {
            Map<String, String> env = new LinkedHashMap<>(cluster.etcdctlEnvironment(USER, PASSWORD));
            env.remove("ETCDCTL_ENDPOINTS"); // the members are given the endpoints
            etcdEnvironment = Map.copyOf(env);
        }
        return etcdEnvironment;
    }

    String prefix() {
        return prefix;
    }

    Duration ttl() {
        return ttl;
    }

    Duration flap() {
        return flap;
    }

    String keyHex() {
        return keyHex;
    }

    EtcdCluster cluster() {
        return cluster;
    }

    /** Starts the members {@code ids} at once, without waiting for them. */
    synchronized List<MemberProcess> launch(String... ids) {
        List<MemberProcess> started = new ArrayList<>();
        for (String id : ids) {
            MemberProcess m = MemberProcess.start(this, id);
            members.put(id, m);
            all.add(m);
            started.add(m);
        }
        return started;
    }

    /** Starts the members {@code ids} at once and waits until each runs its membership. */
    List<MemberProcess> start(String... ids) {
        List<MemberProcess> started = launch(ids);
        for (MemberProcess m : started) {
            m.awaitReady(START);
        }
        return started;
    }

    /** The member process named {@code id}. */
    synchronized MemberProcess member(String id) {
        MemberProcess m = members.get(id);
        if (m == null) {
            throw new IllegalArgumentException("no member " + id + " in " + members.keySet());
        }
        return m;
    }

    /**
     * Waits until each of {@code group} has added every other one and has verified a round of
     * transfers to it.
     */
    void awaitMesh(List<MemberProcess> group, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (MemberProcess m : group) {
            for (MemberProcess other : group) {
                if (m != other) {
                    m.awaitEvent(0, e -> e.is("ADDED", other.id()), Duration.ofNanos(Math.max(0, deadline
                            - System.nanoTime())), "ADDED " + other.id());
                }
            }
        }
        for (MemberProcess m : group) {
            while (true) {
                MemberStats s = m.stats();
                if (group.stream().filter(o -> o != m).allMatch(o -> s.peer(o.id()).verified > 0)) {
                    break;
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(m.id() + " verified no round to some member of "
                            + group.stream().map(MemberProcess::id).toList() + " within " + timeout + ": " + s);
                }
                sleep(50);
            }
        }
    }

    /**
     * Writes {@code value} under {@code prefix + key} through a client of this test JVM, with a
     * lease of the deployment's TTL, retrying while etcd elects a leader. Not an entry: the members
     * refuse it, which shows their watches run.
     */
    void writeRaw(String key, String value) {
        EtcdDirectory w;
        synchronized (this) {
            if (writer == null) {
                writer = EtcdDirectory.builder(cluster.endpoints()).environment(etcdEnvironment()).prefix(prefix)
                        .name("test-writer")
                        .operationTimeout(Duration.ofSeconds(30)).build();
            }
            w = writer;
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            try {
                w.publish(key, value.getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(60), PublicationListener.NONE);
                return;
            } catch (DirectoryUnavailableException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                sleep(200);
            }
        }
    }

    /**
     * Ends every member (its goodbye, else SIGKILL), by pid, then removes the UCX shared-memory
     * files they mapped and no live process maps, and fails if one is left. Idempotent.
     */
    @Override
    public void close() {
        List<MemberProcess> toEnd;
        EtcdDirectory w;
        synchronized (this) {
            toEnd = List.copyOf(all);
            all.clear();
            w = writer;
            writer = null;
        }
        List<Thread> closers = new ArrayList<>();
        for (MemberProcess m : toEnd) {
            closers.add(Thread.ofPlatform().name("close-" + m.id()).start(m::close));
        }
        for (Thread t : closers) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (w != null) {
            w.close();
        }
        Set<Path> files = new LinkedHashSet<>();
        List<String> alive = new ArrayList<>();
        for (MemberProcess m : toEnd) {
            files.addAll(m.shmFiles());
            if (m.isAlive()) {
                alive.add(m.toString());
            }
        }
        List<Path> left = UcxShmFiles.sweep(files).kept();
        if (!alive.isEmpty() || !left.isEmpty()) {
            throw new AssertionError("after the deployment " + prefix + ": members still running " + alive
                    + ", shared-memory files left " + left);
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}
