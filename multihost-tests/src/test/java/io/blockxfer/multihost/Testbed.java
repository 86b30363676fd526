package io.blockxfer.multihost;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.testcontainers.containers.Network;

/**
 * The peers of one test: a fresh Docker network (a /24 of the engine's address pool, inside
 * 198.18.0.0/15), target and initiator containers on it, their control directories and logs; closing
 * it stops every container and removes the network.
 *
 * <p>Where a backend cannot run (its jar is not on the peers' class path, or the peer program
 * cannot open a transport in the container) the test is skipped with the cause, or fails with it
 * when {@code blockxfer.multihost.require} is set.
 *
 * <p><b>Thread safety:</b> not thread-safe; one test thread builds and closes it.
 */
final class Testbed implements AutoCloseable {

    static final int TARGET_BLOCKS = 128;
    static final long BLOCK_LENGTH = 64 * 1024;

    private final MultihostSettings settings;
    private final BackendProfile backend;
    private final PeerClasspath classpath;
    private final Duration transferTimeout;
    private final Network network;
    private final Path controlRoot;
    private final Path logDir;
    private final List<PeerHost> hosts = Collections.synchronizedList(new ArrayList<>());

    private Testbed(MultihostSettings settings, PeerClasspath classpath, BackendProfile backend, String test,
            Duration transferTimeout) throws IOException {
        this.settings = settings;
        this.classpath = classpath;
        this.backend = backend;
        this.transferTimeout = transferTimeout;
        this.controlRoot = Files.createTempDirectory("bxmh-");
        this.logDir = settings.reportDir().resolve("logs").resolve(test + "-" + backend.name());
        Files.createDirectories(logDir);
        this.network = Network.newNetwork();
    }

    /**
     * A testbed for {@code backend}, whose peers fail transfers still in flight after
     * {@code transferTimeout}.
     */
    static Testbed open(String backend, String test, Duration transferTimeout) throws IOException {
        MultihostSettings settings = MultihostSettings.get();
        Preflight.problem().ifPresent(p -> {
            throw new AssertionError("blockxfer.multihost.require is set, but: " + p);
        });
        PeerClasspath classpath = PeerClasspath.read(settings.peerClasspath());
        if (!classpath.hasBackend(backend)) {
            unavailable(settings, "backend '" + backend + "' is not on the peers' class path ("
                    + settings.peerClasspath() + "): build its module transport-" + backend + " so that the"
                    + " profile backend-" + backend + " of multihost-tests adds it");
        }
        return new Testbed(settings, classpath, BackendProfile.of(backend), test, transferTimeout);
    }

    private static void unavailable(MultihostSettings settings, String why) {
        if (settings.require()) {
            throw new AssertionError("blockxfer.multihost.require is set, but " + why);
        }
        Assumptions.abort(why);
    }

    MultihostSettings settings() {
        return settings;
    }

    PeerClasspath classpath() {
        return classpath;
    }

    BackendProfile backend() {
        return backend;
    }

    Network network() {
        return network;
    }

    Path controlRoot() {
        return controlRoot;
    }

    Path logDir() {
        return logDir;
    }

    Duration transferTimeout() {
        return transferTimeout;
    }

    long blockLength() {
        return BLOCK_LENGTH;
    }

    /** Starts {@code n} targets named {@code t1..tn}, in parallel, each filled with its own pattern family. */
    List<TargetHost> targets(int n) {
        return targets("t", n);
    }

    /** Starts {@code n} targets named {@code prefix1..prefixN}. */
    List<TargetHost> targets(String prefix, int n) {
        List<Callable<TargetHost>> starts = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            String name = prefix + i;
            long family = System.nanoTime() ^ ((long) i << 48);
            starts.add(() -> track(new TargetHost(this, name, TARGET_BLOCKS, family)));
        }
        return startAll(starts);
    }

    /** Starts {@code n} members ({@link MemberHost}) named {@code m0..m(n-1)}, in parallel. */
    List<MemberHost> members(int n) {
        List<Callable<MemberHost>> starts = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String name = "m" + i;
            starts.add(() -> track(new MemberHost(this, name)));
        }
        return startAll(starts);
    }

    private <T extends PeerHost> List<T> startAll(List<Callable<T>> starts) {
        ExecutorService pool = Executors.newFixedThreadPool(starts.size());
        try {
            List<Future<T>> futures = new ArrayList<>();
            for (Callable<T> start : starts) {
                futures.add(pool.submit(start));
            }
            List<T> hosts = new ArrayList<>();
            for (Future<T> f : futures) {
                hosts.add(started(f));
            }
            return hosts;
        } finally {
            pool.shutdown();
        }
    }

    /** Starts an initiator that emits progress every {@code progress}. */
    InitiatorHost initiator(String name, Duration progress) {
        try {
            return track(new InitiatorHost(this, name, progress));
        } catch (PeerHost.PeerStartException e) {
            unavailable(settings, e.getMessage());
            throw e;
        } catch (IOException e) {
            throw new AssertionError("could not start " + name + ": " + e, e);
        }
    }

    private <T extends PeerHost> T track(T host) {
        hosts.add(host);
        return host;
    }

    private <T extends PeerHost> T started(Future<T> f) {
        try {
            return f.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof PeerHost.PeerStartException pse) {
                unavailable(settings, pse.getMessage());
            }
            throw new AssertionError("a peer did not start: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while starting targets", e);
        }
    }

    @Override
    public void close() {
        List<PeerHost> all = new ArrayList<>(hosts);
        Collections.reverse(all);
        for (PeerHost h : all) {
            try {
                h.close();
            } catch (RuntimeException e) {
                System.err.println("closing " + h + ": " + e);
            }
        }
        try {
            network.close();
        } catch (RuntimeException e) {
            System.err.println("removing the network: " + e);
        }
        try (Stream<Path> files = Files.walk(controlRoot)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory left behind is harmless
        }
    }
}
