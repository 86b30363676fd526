package io.blockxfer.cli.membership;

import io.blockxfer.directory.Directory;
import io.blockxfer.directory.DirectoryEvent;
import io.blockxfer.directory.DirectoryListener;
import io.blockxfer.directory.DirectorySnapshot;
import io.blockxfer.directory.DirectoryWatch;
import io.blockxfer.directory.Membership;
import io.blockxfer.directory.MembershipListener;
import io.blockxfer.directory.Refusal;
import io.blockxfer.directory.etcd.EtcdDirectory;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One JVM of {@link MembershipBench}: members (each a loopback transport, its own
 * {@link EtcdDirectory} client and a {@link Membership}) that join and leave as the coordinator
 * says on standard input ({@code join ID}, {@code leave ID}, {@code quit}; end of input is a quit),
 * and every change a membership applies to its transport, told on standard output with the wall
 * clock in microseconds ({@code add OBSERVER SUBJECT T}, {@code remove OBSERVER SUBJECT T},
 * {@code joined ID T0 T1}, {@code left ID T0 T1}, {@code failed ID REASON}, {@code counts ...}).
 *
 * <p>A loopback transport resolves a peer's metadata only in its own JVM: the registration of a
 * member of another JVM fails in the transport, after the membership has asked for it; what is
 * timed is that request ({@link TimedTransport}), which every member makes of every other whatever
 * the transport does with it.
 *
 * <p><b>Thread safety:</b> a program; its state is confined or concurrent.
 */
public final class MembershipWorker {

    /** Kept, so that the level set on it stays set. */
    private static final Logger QUIET = Logger.getLogger("io.blockxfer");

    private final PrintStream out;
    private final String endpoints;
    private final String prefix;
    private final Duration ttl;
    private final Map<String, Member> members = new ConcurrentHashMap<>();
    private final ExecutorService actions = Executors.newFixedThreadPool(4);
    private final AtomicLong registrationFailures = new AtomicLong();
    private final AtomicLong refusals = new AtomicLong();
    private final AtomicLong leaseLosses = new AtomicLong();
    private final AtomicLong reconnects = new AtomicLong();

    private record Member(DataTransport transport, EtcdDirectory directory, Membership membership) {
    }

    private MembershipWorker(PrintStream out, String endpoints, String prefix, Duration ttl) {
        this.out = out;
        this.endpoints = endpoints;
        this.prefix = prefix;
        this.ttl = ttl;
    }

    /** {@code ENDPOINTS PREFIX TTL_SECONDS}. */
    public static void main(String[] args) throws Exception {
        QUIET.setLevel(Level.SEVERE); // a warning per cross-JVM registration would drown the output
        MembershipWorker w = new MembershipWorker(System.out, args[0], args[1],
                Duration.ofSeconds(Long.parseLong(args[2])));
        w.run();
        System.exit(0);
    }

    static long nowMicros() {
        Instant i = Instant.now();
        return i.getEpochSecond() * 1_000_000 + i.getNano() / 1_000;
    }

    private void say(String line) {
        synchronized (out) {
            out.println(line);
            out.flush();
        }
    }

    private void run() throws IOException, InterruptedException {
        warmUp();
        say("ready " + ProcessHandle.current().pid());
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null && !line.equals("quit")) {
                String[] w = line.split(" ", -1);
                switch (w[0]) {
                    case "join" -> actions.execute(() -> join(w[1]));
                    case "leave" -> actions.execute(() -> leave(w[1]));
                    default -> say("failed - unknown command: " + line);
                }
            }
        }
        actions.shutdown();
        actions.awaitTermination(30, TimeUnit.SECONDS);
        say("counts registrationFailures=" + registrationFailures + " refusals=" + refusals + " leaseLosses="
                + leaseLosses + " reconnects=" + reconnects);
        members.keySet().forEach(this::leave);
        say("bye");
    }

    /**
     * Loads what a member needs (gRPC, Netty, Vert.x, the loopback backend) before the first join,
     * so that joins measure the membership, not this JVM's class loading: a client that lists the
     * prefix once, and a loopback transport.
     */
    private void warmUp() {
        try (DataTransport t = Transports.open(TransportConfig.builder(RegionSpec.allocate(4, 4096))
                .transport("loopback").agentName("warm-up").build());
                EtcdDirectory d = EtcdDirectory.builder(endpoints).prefix(prefix).name("warm-up")
                        .operationTimeout(Duration.ofSeconds(60)).build()) {
            listOnce(d);
            say("warm " + t.backendName());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            say("failed warm-up " + e);
        }
    }

    /** Lists {@code d}'s member keys once (waiting up to 60 s), so that what a listing needs is loaded. */
    static void listOnce(Directory d) throws InterruptedException, ExecutionException, TimeoutException {
        CompletableFuture<DirectorySnapshot> listed = new CompletableFuture<>();
        DirectoryWatch w = d.watch(new DirectoryListener() {
            @Override
            public void snapshot(DirectorySnapshot snapshot) {
                listed.complete(snapshot);
            }

            @Override
            public void changed(DirectoryEvent event) {
                // the listing is all it takes
            }
        });
        try {
            listed.get(60, TimeUnit.SECONDS);
        } finally {
            w.close();
        }
    }

    private void join(String id) {
        long t0 = nowMicros();
        DataTransport transport = null;
        EtcdDirectory directory = null;
        try {
            transport = new TimedTransport(Transports.open(TransportConfig.builder(RegionSpec.allocate(4, 4096))
                    .transport("loopback").agentName(id).build()), id, this::say);
            directory = EtcdDirectory.builder(endpoints).prefix(prefix).name(id).build();
            Membership m = Membership.builder(transport, directory).memberId(id).ttl(ttl)
                    .listener(new Counter()).build();
            members.put(id, new Member(transport, directory, m));
            say("joined " + id + " " + t0 + " " + nowMicros());
        } catch (RuntimeException e) {
            say("failed " + id + " " + e);
            if (directory != null) {
                directory.close();
            }
            if (transport != null) {
                transport.close();
            }
        }
    }

    private void leave(String id) {
        Member m = members.remove(id);
        if (m == null) {
            return;
        }
        long t0 = nowMicros();
        m.membership().close(); // the goodbye: its lease revoked
        long t1 = nowMicros();
        m.directory().close();
        m.transport().close();
        say("left " + id + " " + t0 + " " + t1);
    }

    /** Counts what would otherwise only be logged. */
    private final class Counter implements MembershipListener {
        @Override
        public void registrationFailed(String memberId, long epoch, Throwable cause) {
            registrationFailures.incrementAndGet();
        }

        @Override
        public void refused(Refusal refusal) {
            refusals.incrementAndGet();
        }

        @Override
        public void leaseLost(String memberId, long epoch, String reason) {
            leaseLosses.incrementAndGet();
        }

        @Override
        public void reconnected(long revision, boolean resync) {
            reconnects.incrementAndGet();
        }
    }
}
