package io.blockxfer.cli.membership;

import io.blockxfer.directory.DirectoryScope;
import io.blockxfer.directory.Membership;
import io.blockxfer.directory.MembershipListener;
import io.blockxfer.directory.Refusal;
import io.blockxfer.directory.etcd.EtcdDirectory;
import io.blockxfer.tck.ForwardingTransport;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.jspecify.annotations.Nullable;

/**
 * One JVM of {@link MembershipScaleBench}: members (each a loopback transport of one small block
 * and a {@link Membership}; every {@code PER_CONNECTION} members in order of their joins share one
 * {@link EtcdDirectory} client, one connection to etcd, as memberships of one process would) in one
 * of two modes:
 * <ul>
 *   <li>{@code eager}: {@link Membership.Builder#followAll()}, every member of the prefix;
 *   <li>{@code on-demand}: {@link Membership.Builder#followNone()}; each member
 *       {@linkplain Membership#resolve resolves} {@value #PARTNERS} partners, chosen with a seed
 *       from the members of this JVM whose join was asked before its own (a loopback transport
 *       registers only peers of its own JVM, so a resolution to "writable" needs a partner here).
 *       The first members of a JVM find fewer than {@value #PARTNERS}: {@code topup} has every
 *       member resolve the rest from all members of this JVM.
 * </ul>
 *
 * <p>Commands on standard input: {@code join ID}, {@code topup}, {@code probe COUNT SEED},
 * {@code quit} (end of input is a quit). It tells on standard output, every 200 ms,
 * {@code status MEMBERS ADDS RESOLVED FAILED} (members built; distinct peers its members asked
 * their transports to add, summed; resolutions completed and failed), and per resolution
 * {@code r PHASE MICROS OUTCOME} (PHASE {@code join}, {@code topup} or {@code probe}; OUTCOME
 * {@code ok} or the failure), per plain etcd read {@code g MICROS}, and {@code failed ...} lines;
 * at the end, {@code counts ...}, among them the GOAWAYs etcd sent its clients for too many pings
 * ({@code pingGoaways}, each a connection closed under its watches and calls).
 *
 * <p>{@code probe}: COUNT rounds, one at a time, each a plain jetcd get of one member's key (a
 * client of this JVM's own, linearizable as jetcd's default; {@code g MICROS}), the same read
 * through the member's directory ({@link EtcdDirectory#read}, the read a resolution makes;
 * {@code d MICROS}) and a resolution by a member of one that it does not hold yet, in an order
 * that turns round by round, so all three see the same moments of the host (in the eager mode,
 * where every member is held, only the reads).
 *
 * <p><b>Thread safety:</b> a program; its state is confined or concurrent.
 */
public final class MembershipScaleWorker {

    static final int PARTNERS = 8;

    /** Kept, so that the level set on it stays set. */
    private static final Logger QUIET = Logger.getLogger("io.blockxfer");
    /** gRPC's client handler, which logs each GOAWAY with ENHANCE_YOUR_CALM that etcd sends (held: loggers are weak). */
    private static final Logger GRPC_CLIENT = Logger.getLogger("io.grpc.netty.NettyClientHandler");
    /** The GOAWAYs for too many pings that etcd sent to this JVM's clients. */
    private static final AtomicLong PING_GOAWAYS = new AtomicLong();

    private final PrintStream out = System.out;
    private final String endpoints;
    private final String prefix;
    private final Duration ttl;
    private final boolean onDemand;
    private final long seed;
    private final int perConnection;
    /** The shared directories, by connection: members {@code k * perConnection} on use connection {@code k}. */
    private final Map<Integer, EtcdDirectory> connections = new ConcurrentHashMap<>();
    /** Members in the order their joins were asked. */
    private final List<String> order = new ArrayList<>();
    private final Map<String, CompletableFuture<Member>> members = new ConcurrentHashMap<>();
    private final ExecutorService joins = Executors.newFixedThreadPool(4);
    private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor();
    private final AtomicLong built = new AtomicLong();
    private final AtomicLong adds = new AtomicLong();
    private final AtomicLong resolved = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong registrationFailures = new AtomicLong();
    private final AtomicLong refusals = new AtomicLong();
    private final AtomicLong leaseLosses = new AtomicLong();
    private @Nullable Client plain;

    private record Member(String id, DataTransport transport, EtcdDirectory directory, Membership membership,
            Set<String> partners) {
    }

    private MembershipScaleWorker(String endpoints, String prefix, Duration ttl, boolean onDemand, long seed,
            int perConnection) {
        this.endpoints = endpoints;
        this.prefix = prefix;
        this.ttl = ttl;
        this.onDemand = onDemand;
        this.seed = seed;
        this.perConnection = perConnection;
    }

    /** {@code ENDPOINTS PREFIX TTL_SECONDS eager|on-demand SEED MEMBERS_PER_CONNECTION}. */
    public static void main(String[] args) throws Exception {
        QUIET.setLevel(Level.SEVERE); // a warning per cross-JVM registration would drown the output
        GRPC_CLIENT.addHandler(new Handler() {
            @Override
            public void publish(LogRecord r) {
                if (String.valueOf(r.getMessage()).contains("ENHANCE_YOUR_CALM")) {
                    PING_GOAWAYS.incrementAndGet();
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        });
        String mode = args[3];
        if (!mode.equals("eager") && !mode.equals("on-demand")) {
            throw new IllegalArgumentException("mode must be eager or on-demand: " + mode);
        }
        new MembershipScaleWorker(args[0], args[1], Duration.ofSeconds(Long.parseLong(args[2])),
                mode.equals("on-demand"), Long.parseLong(args[4]), Integer.parseInt(args[5])).run();
        System.exit(0);
    }

    /** The directory of the member joining {@code position}-th in this JVM: its connection's, made on first use. */
    private EtcdDirectory connectionFor(int position) {
        return connections.computeIfAbsent(position / perConnection, k -> EtcdDirectory.builder(endpoints)
                .prefix(prefix).name("c" + k).build());
    }

    private void say(String line) {
        synchronized (out) {
            out.println(line);
            out.flush();
        }
    }

    private void run() throws IOException, InterruptedException {
        warmUp();
        var unused = ticker.scheduleAtFixedRate(() -> say("status " + built + " " + adds + " " + resolved + " " + failed),
                200, 200, TimeUnit.MILLISECONDS);
        say("ready " + ProcessHandle.current().pid());
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null && !line.equals("quit")) {
                String[] w = line.split(" ", -1);
                switch (w[0]) {
                    case "join" -> join(w[1]);
                    case "topup" -> topUp();
                    case "probe" -> {
                        int count = Integer.parseInt(w[1]);
                        long probeSeed = Long.parseLong(w[2]);
                        joins.execute(() -> probe(count, probeSeed));
                    }
                    default -> say("failed - unknown command: " + line);
                }
            }
        }
        joins.shutdown();
        joins.awaitTermination(30, TimeUnit.SECONDS);
        say("counts registrationFailures=" + registrationFailures + " refusals=" + refusals + " leaseLosses="
                + leaseLosses + " pingGoaways=" + PING_GOAWAYS);
        ticker.shutdownNow();
        // no goodbyes: the coordinator ends this JVM and etcd with it; a thousand revocations would
        // only slow the end of a run
        say("bye");
    }

    private static String http(String endpoints) {
        String list = endpoints.startsWith("etcd://") ? endpoints.substring("etcd://".length()) : endpoints;
        return Arrays.stream(list.split(",", -1)).map(e -> e.startsWith("http") ? e : "http://" + e)
                .reduce((a, b) -> a + "," + b).orElseThrow();
    }

    /**
     * Loads what a member needs (gRPC, Netty, Vert.x, the loopback backend) before the first join:
     * a client that lists the prefix once, a loopback transport, and the plain client's first gets.
     */
    private void warmUp() {
        try (DataTransport t = Transports.open(config("warm-up"));
                EtcdDirectory d = EtcdDirectory.builder(endpoints).prefix(prefix).name("warm-up")
                        .operationTimeout(Duration.ofSeconds(60)).build()) {
            MembershipWorker.listOnce(d);
            // as the membership's own connections: keepalive pings only while a call is open, for
            // etcd answers pings on a connection without one with GOAWAY "too_many_pings" (jetcd's
            // default pings every 30 s whatever: this client idles through the cold start)
            plain = Client.builder().endpoints(http(endpoints).split(",", -1)).keepaliveWithoutCalls(false).build();
            for (int i = 0; i < 20; i++) {
                plainGet(prefix + "warm-up");
            }
            say("warm " + t.backendName());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            say("failed warm-up " + e);
        }
    }

    private static TransportConfig config(String name) {
        // the smallest region: one block of 64 bytes (a descriptor describes the region, not its bytes)
        return TransportConfig.builder(RegionSpec.allocate(1, 64)).transport("loopback").agentName(name).build();
    }

    /** Times one read of {@code id}'s key through {@code m}'s directory (a resolution's read), in microseconds. */
    private long directoryRead(Member m, String id) throws InterruptedException, ExecutionException,
            TimeoutException {
        long t0 = System.nanoTime();
        m.directory().read(DirectoryScope.member(id)).get(30, TimeUnit.SECONDS);
        return (System.nanoTime() - t0) / 1_000;
    }

    /** Times one linearizable get of {@code key}, in microseconds. */
    private long plainGet(String key) throws InterruptedException, ExecutionException, TimeoutException {
        Client c = plain;
        if (c == null) {
            throw new IllegalStateException("no plain client");
        }
        long t0 = System.nanoTime();
        c.getKVClient().get(ByteSequence.from(key, StandardCharsets.UTF_8)).get(30, TimeUnit.SECONDS);
        return (System.nanoTime() - t0) / 1_000;
    }

    // ------------------------------------------------------------------------------ joins

    private void join(String id) {
        List<String> before;
        synchronized (order) {
            before = List.copyOf(order);
            order.add(id);
        }
        int position = before.size();
        CompletableFuture<Member> future = new CompletableFuture<>();
        members.put(id, future);
        joins.execute(() -> {
            Member m = build(id, position);
            if (m == null) {
                future.completeExceptionally(new IllegalStateException("join of " + id + " failed"));
                return;
            }
            future.complete(m);
            built.incrementAndGet();
            if (onDemand) {
                List<String> chosen = choose(new Random(seed * 31 + id.hashCode()), before, m, PARTNERS);
                chosen.forEach(p -> resolveWhenUp(m, p, "join"));
            }
        });
    }

    private @Nullable Member build(String id, int position) {
        DataTransport transport = null;
        EtcdDirectory directory = null;
        try {
            Set<String> seen = ConcurrentHashMap.newKeySet();
            transport = new CountingTransport(Transports.open(config(id)), seen, adds);
            directory = perConnection > 1 ? connectionFor(position)
                    : EtcdDirectory.builder(endpoints).prefix(prefix).name(id).build();
            Membership.Builder b = Membership.builder(transport, directory).memberId(id).ttl(ttl)
                    .listener(new Counter());
            b = onDemand ? b.followNone() : b.followAll();
            Membership membership = b.build();
            return new Member(id, transport, directory, membership, ConcurrentHashMap.newKeySet());
        } catch (RuntimeException e) {
            say("failed " + id + " " + e);
            if (directory != null && perConnection <= 1) {
                directory.close();
            }
            if (transport != null) {
                transport.close();
            }
            return null;
        }
    }

    /** Up to {@code count} of {@code candidates} that {@code m} holds not yet, not itself, chosen with {@code r}. */
    private static List<String> choose(Random r, List<String> candidates, Member m, int count) {
        List<String> pool = new ArrayList<>(candidates);
        pool.remove(m.id());
        pool.removeAll(m.partners());
        List<String> chosen = new ArrayList<>();
        while (chosen.size() < count && !pool.isEmpty()) {
            String p = pool.remove(r.nextInt(pool.size()));
            chosen.add(p);
            m.partners().add(p);
        }
        return chosen;
    }

    /** Once {@code partner} has joined, {@code m} resolves it; the time is told. */
    private void resolveWhenUp(Member m, String partner, String phase) {
        var unused = members.get(partner).thenAccept(p -> {
            long t0 = System.nanoTime();
            CompletableFuture<Long> f;
            try {
                f = m.membership().resolve(partner);
            } catch (RuntimeException e) {
                f = CompletableFuture.failedFuture(e);
            }
            var unusedToo = f.whenComplete((epoch, e) -> told(phase, t0, e));
        }).exceptionally(e -> {
            failed.incrementAndGet();
            say("r " + phase + " 0 partner-failed");
            return null;
        });
    }

    private void told(String phase, long t0, @Nullable Throwable e) {
        long micros = (System.nanoTime() - t0) / 1_000;
        if (e == null) {
            resolved.incrementAndGet();
            say("r " + phase + " " + micros + " ok");
        } else {
            failed.incrementAndGet();
            Throwable c = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            say("r " + phase + " " + micros + " " + c.getClass().getSimpleName() + ":"
                    + String.valueOf(c.getMessage()).replace(' ', '_'));
        }
    }

    /** Every member with fewer than {@value #PARTNERS} partners resolves the rest from all members of this JVM. */
    private void topUp() {
        List<String> all;
        synchronized (order) {
            all = List.copyOf(order);
        }
        for (String id : all) {
            var unused = members.get(id).thenAccept(m -> {
                int missing = PARTNERS - m.partners().size();
                if (onDemand && missing > 0) {
                    choose(new Random(seed * 37 + id.hashCode()), all, m, missing)
                            .forEach(p -> resolveWhenUp(m, p, "topup"));
                }
            });
        }
    }

    /** {@code count} rounds of one plain get and one resolution of a member not held yet, one at a time. */
    private void probe(int count, long probeSeed) {
        Random r = new Random(probeSeed);
        List<String> all;
        synchronized (order) {
            all = List.copyOf(order);
        }
        List<Member> up = new ArrayList<>();
        for (String id : all) {
            Member m = members.get(id).getNow(null);
            if (m != null) {
                up.add(m);
            }
        }
        try {
            for (int i = 0; i < count; i++) {
                Member m = up.get(r.nextInt(up.size()));
                String other = all.get(r.nextInt(all.size()));
                String key = prefix + other;
                if (!onDemand) { // eager: every member is held already; only the reads
                    say("g " + plainGet(key));
                    say("d " + directoryRead(m, other));
                    continue;
                }
                List<String> target = choose(r, all, m, 1);
                if (target.isEmpty()) {
                    continue;
                }
                for (int step = 0; step < 3; step++) { // the order turns round by round
                    switch ((i + step) % 3) {
                        case 0 -> say("g " + plainGet(key));
                        case 1 -> say("d " + directoryRead(m, other));
                        default -> {
                            long t0 = System.nanoTime();
                            Throwable failure = null;
                            try {
                                m.membership().resolve(target.getFirst()).get(60, TimeUnit.SECONDS);
                            } catch (ExecutionException e) {
                                failure = e.getCause();
                            } catch (TimeoutException | RuntimeException e) {
                                failure = e;
                            }
                            told("probe", t0, failure);
                        }
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            say("failed probe " + e);
        }
        say("probed " + count);
    }

    /** The transport it wraps, counting the distinct peers a membership asks it to add. */
    private static final class CountingTransport extends ForwardingTransport {
        private final Set<String> seen;
        private final AtomicLong adds;

        CountingTransport(DataTransport delegate, Set<String> seen, AtomicLong adds) {
            super(delegate);
            this.seen = seen;
            this.adds = adds;
        }

        private void count(String peerId) {
            if (seen.add(peerId)) {
                adds.incrementAndGet();
            }
        }

        @Override
        public void addPeer(String peerId, PeerDescriptor peer) {
            count(peerId);
            delegate().addPeer(peerId, peer);
        }

        @Override
        public CompletableFuture<Void> addPeerAsync(String peerId, PeerDescriptor peer) {
            count(peerId);
            return delegate().addPeerAsync(peerId, peer);
        }
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
    }
}
