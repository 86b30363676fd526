package io.blockxfer.membership;

import io.blockxfer.directory.DirectoryUnavailableException;
import io.blockxfer.directory.Membership;
import io.blockxfer.directory.MembershipListener;
import io.blockxfer.directory.Refusal;
import io.blockxfer.directory.etcd.EtcdDirectory;
import io.blockxfer.tck.BlockPattern;
import io.blockxfer.tck.process.ChildJvm;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * One member of a deployment, in a child JVM: a transport of the named backend, bound by a
 * {@link Membership} to an etcd directory, that keeps writing to every member its membership has
 * registered and verifies each write on arrival. Arguments:
 * {@code BACKEND ENDPOINTS PREFIX MEMBER_ID TTL_SECONDS FLAP_MILLIS KEY_HEX}; the member id is
 * {@code m<slot>} with a slot below {@value #MAX_MEMBERS}.
 *
 * <p><b>Transfers.</b> A round to a peer writes a fresh {@link BlockPattern} into the peer's block
 * number {@code slot} (only this member writes there), then reads that block back into a local
 * block and compares it with the pattern: the bytes that arrived in the peer's memory are the
 * bytes written. One round per peer is under way at a time, a new one at most every
 * {@value #ROUND_MILLIS} ms. Every id a submit returns is checked to end exactly once (a report
 * of an id that is not in flight is a violation).
 *
 * <p><b>Lines out</b> (stdout, one per line): {@code EVENT <millis> <kind> <member> <epoch>
 * <detail>} for every {@link MembershipListener} call (kinds {@code STARTED}, {@code PUBLISHED},
 * {@code LEASE_LOST}, {@code PUBLISH_FAILED}, {@code ADDED}, {@code UPDATED}, {@code REMOVED},
 * {@code REREGISTERED}, {@code REGISTRATION_FAILED}, {@code REFUSED}, {@code DISCONNECTED},
 * {@code RECONNECTED}), for
 * each failed start ({@code START_FAILED}: etcd unreachable, tried again every 500 ms) and each
 * violation or wrong byte ({@code VIOLATION}, {@code MISMATCH}); {@code READY <epoch>} once the
 * membership runs; and the answers to the commands on stdin: {@code STATS} (answers
 * {@link MemberStats#format}), {@code QUIESCE} (no new rounds; answers {@code QUIESCED <in flight>}
 * once nothing is in flight, or after 15 s), {@code RESUME} (answers {@code RESUMED}),
 * {@code CLOSE} (closes the membership, the transport and the directory; answers {@code BYE}).
 * {@code <millis>} is the wall clock, comparable with the test JVM's on one host. The program
 * ends when stdin closes or its parent dies.
 *
 * <p><b>Thread safety:</b> a program; the listener runs on the membership's thread, transfers on
 * one writer thread, commands on the main thread; the counts are guarded by one lock.
 */
public final class MemberMain {

    /** The highest number of members of a deployment (slots {@code m0} to {@code m15}). */
    static final int MAX_MEMBERS = 16;
    /** The length of a block. */
    static final long BLOCK_LENGTH = 64 * 1024;
    /** How long a transfer may take before the transport fails it: longer than any fault here. */
    static final Duration TRANSFER_TIMEOUT = Duration.ofSeconds(60);
    /** A failed transfer counts as explained when its peer's registration changed within this time of its submit. */
    static final long EXPLAINED_WITHIN_MILLIS = 5_000;
    private static final long ROUND_MILLIS = 20;

    private final PrintStream out;
    private final String memberId;
    private final int slot;
    private final DataTransport transport;
    private final Object lock = new Object();
    private final Map<Long, Pending> inFlight = new TreeMap<>();
    private final Map<String, MemberStats.Peer> peers = new TreeMap<>();
    private final Map<String, Round> rounds = new TreeMap<>();
    private final Map<String, List<Long>> registrationChanges = new TreeMap<>();
    private long violations;
    private long seeds;
    private volatile @Nullable Membership membership;
    private volatile boolean quiesced;
    private volatile boolean running = true;

    private MemberMain(PrintStream out, String memberId, DataTransport transport) {
        this.out = out;
        this.memberId = memberId;
        this.slot = slotOf(memberId);
        this.transport = transport;
    }

    /** The slot of member id {@code m<slot>}. */
    static int slotOf(String memberId) {
        if (!memberId.matches("m[0-9]{1,2}") || Integer.parseInt(memberId.substring(1)) >= MAX_MEMBERS) {
            throw new IllegalArgumentException("member ids are m0 to m" + (MAX_MEMBERS - 1) + ": " + memberId);
        }
        return Integer.parseInt(memberId.substring(1));
    }

    /** Runs the member until stdin closes, {@code CLOSE}, or its parent dies. */
    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err); // stdout is the protocol's
        ChildJvm.exitWhenParentDies();
        String backend = args[0];
        String endpoints = args[1];
        String prefix = args[2];
        String memberId = args[3];
        Duration ttl = Duration.ofSeconds(Long.parseLong(args[4]));
        Duration flap = Duration.ofMillis(Long.parseLong(args[5]));
        DeploymentKeyRing keys = DeploymentKeyRing.of("faults", HexFormat.of().parseHex(args[6]));
        slotOf(memberId);
        TransportConfig config = TransportConfig.builder(RegionSpec.allocate(3 * MAX_MEMBERS, BLOCK_LENGTH))
                .agentName(memberId).transferTimeout(TRANSFER_TIMEOUT).closeTimeout(Duration.ofSeconds(5))
                .keyRing(keys).build();
        try (DataTransport transport = Transports.select(backend, MemberMain.class.getClassLoader()).open(config);
                // TLS and a user, when the test gives them, as etcdctl's variables
                EtcdDirectory directory = EtcdDirectory.builder(endpoints).environment(System.getenv())
                        .prefix(prefix).name(memberId)
                        .operationTimeout(Duration.ofSeconds(5)).build()) {
            MemberMain member = new MemberMain(out, memberId, transport);
            Membership m = member.start(directory, ttl, flap, keys);
            Thread writer = Thread.ofPlatform().name("member-writer").start(member::writeLoop);
            out.println("READY " + m.epoch());
            member.serve(new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)));
            member.running = false;
            writer.join(TimeUnit.SECONDS.toMillis(10));
            m.close();
        }
        out.println("BYE");
    }

    /** Builds the membership, trying again every 500 ms while etcd cannot be reached. */
    private Membership start(EtcdDirectory directory, Duration ttl, Duration flap, DeploymentKeyRing keys) {
        while (true) {
            try {
                Membership m = Membership.builder(transport, directory).ttl(ttl).flapInterval(flap).keyRing(keys)
                        .listener(new Listener()).build();
                membership = m;
                return m;
            } catch (DirectoryUnavailableException e) {
                event("START_FAILED", memberId, 0, String.valueOf(e.getMessage()));
                sleepMillis(500);
            }
        }
    }

    private void serve(BufferedReader in) throws java.io.IOException {
        String line;
        while ((line = in.readLine()) != null) {
            switch (line.trim()) {
                case "STATS" -> out.println(stats().format());
                case "QUIESCE" -> {
                    quiesced = true;
                    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
                    int left;
                    while ((left = inFlightCount()) > 0 && System.nanoTime() < until) {
                        sleepMillis(10);
                    }
                    out.println("QUIESCED " + left);
                }
                case "RESUME" -> {
                    quiesced = false;
                    out.println("RESUMED");
                }
                case "CLOSE" -> {
                    return;
                }
                default -> out.println("ERR unknown command " + line);
            }
        }
    }

    private int inFlightCount() {
        synchronized (lock) {
            return inFlight.size();
        }
    }

    private MemberStats stats() {
        synchronized (lock) {
            Map<String, MemberStats.Peer> copy = new TreeMap<>();
            peers.forEach((peer, s) -> {
                MemberStats.Peer c = s.copy();
                c.pending = inFlight.values().stream().filter(p -> p.peer.equals(peer)).count();
                c.unexplained = s.failedSubmits.stream().filter(at -> !explained(peer, at)).count();
                copy.put(peer, c);
            });
            return new MemberStats(System.currentTimeMillis(), violations, copy);
        }
    }

    /** Whether the registration of {@code peer} changed within {@link #EXPLAINED_WITHIN_MILLIS} after {@code submitMillis}. */
    private boolean explained(String peer, long submitMillis) {
        return registrationChanges.getOrDefault(peer, List.of()).stream()
                .anyMatch(at -> at >= submitMillis && at <= submitMillis + EXPLAINED_WITHIN_MILLIS);
    }

    private void writeLoop() {
        try {
            loop();
        } catch (RuntimeException | Error e) {
            synchronized (lock) {
                violations++;
            }
            event("VIOLATION", memberId, 0, "the writer died: " + e);
            throw e;
        }
    }

    private void loop() {
        while (running) {
            Membership m = membership;
            if (m != null && !quiesced && !m.isClosed()) {
                long now = System.nanoTime();
                for (String peer : List.copyOf(m.members().keySet())) {
                    synchronized (lock) {
                        Round r = rounds.get(peer);
                        if (r == null || (!r.busy && now >= r.nextAt)) {
                            startRound(peer, now);
                        }
                    }
                }
            }
            transport.pollAll(this::onTerminal);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
        }
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (inFlightCount() > 0 && System.nanoTime() < until) {
            transport.pollAll(this::onTerminal);
            sleepMillis(5);
        }
    }

    /** Starts a round to {@code peer}: fills its source block and writes it. Holds the lock. */
    private void startRound(String peer, long now) {
        int peerSlot = slotOf(peer);
        long seed = BlockPattern.seed(slot * 1_000_003L + peerSlot, (int) ++seeds);
        BlockPattern.fill(transport.region().block(MAX_MEMBERS + peerSlot), seed);
        long id = transport.writeBlocks(peer, new int[] {MAX_MEMBERS + peerSlot}, new int[] {slot});
        MemberStats.Peer s = peers.computeIfAbsent(peer, p -> new MemberStats.Peer());
        Round r = rounds.computeIfAbsent(peer, p -> new Round());
        r.nextAt = now + TimeUnit.MILLISECONDS.toNanos(ROUND_MILLIS);
        if (id == DataTransport.NOT_SUBMITTED) {
            s.notSubmitted++;
            return;
        }
        r.busy = true;
        s.submitted++;
        inFlight.put(id, new Pending(peer, true, seed, System.currentTimeMillis()));
    }

    private void onTerminal(long id, boolean success) {
        synchronized (lock) {
            Pending p = inFlight.remove(id);
            if (p == null) {
                violations++;
                event("VIOLATION", memberId, 0, "transfer " + id + " reported " + (success ? "done" : "failed")
                        + " but not in flight (reported twice, or never submitted)");
                return;
            }
            MemberStats.Peer s = peers.computeIfAbsent(p.peer, x -> new MemberStats.Peer());
            Round r = rounds.computeIfAbsent(p.peer, x -> new Round());
            long now = System.currentTimeMillis();
            if (!success) {
                s.failed++;
                s.failedSubmits.add(p.submitMillis);
                s.firstFailMillis = s.firstFailMillis == 0 ? now : s.firstFailMillis;
                s.lastFailMillis = now;
                r.busy = false;
                return;
            }
            s.done++;
            s.lastDoneMillis = now;
            int peerSlot = slotOf(p.peer);
            int readBack = 2 * MAX_MEMBERS + peerSlot;
            if (p.write) {
                transport.region().block(readBack).fill((byte) 0);
                long read = transport.readBlocks(p.peer, new int[] {readBack}, new int[] {slot});
                if (read == DataTransport.NOT_SUBMITTED) {
                    s.notSubmitted++;
                    r.busy = false;
                    return;
                }
                s.submitted++;
                inFlight.put(read, new Pending(p.peer, false, p.seed, now));
                return;
            }
            long at = BlockPattern.firstMismatch(transport.region().block(readBack), p.seed);
            if (at < 0) {
                s.verified++;
            } else {
                s.mismatched++;
                event("MISMATCH", p.peer, 0, "block " + slot + " of " + p.peer + " read back wrong at byte " + at);
            }
            r.busy = false;
        }
    }

    private void event(String kind, String member, long epoch, String detail) {
        out.println("EVENT " + System.currentTimeMillis() + " " + kind + " " + member + " " + epoch + " "
                + detail.replace('\n', ' ').replace('\r', ' '));
    }

    private void registrationChanged(String member) {
        synchronized (lock) {
            registrationChanges.computeIfAbsent(member, m -> new ArrayList<>()).add(System.currentTimeMillis());
        }
    }

    private static void sleepMillis(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A transfer in flight: to whom, which half of a round, the round's pattern, when it was submitted. */
    private record Pending(String peer, boolean write, long seed, long submitMillis) {
    }

    /** The round state of one peer. */
    private static final class Round {
        boolean busy;
        long nextAt;
    }

    /** Prints every membership call as an event line. */
    private final class Listener implements MembershipListener {
        @Override
        public void membershipStarted(String id, String prefix) {
            event("STARTED", id, 0, prefix);
        }

        @Override
        public void published(String id, long epoch) {
            event("PUBLISHED", id, epoch, "");
        }

        @Override
        public void leaseLost(String id, long epoch, String reason) {
            event("LEASE_LOST", id, epoch, reason);
        }

        @Override
        public void publishFailed(String id, Throwable cause) {
            event("PUBLISH_FAILED", id, 0, String.valueOf(cause));
        }

        @Override
        public void memberAdded(String id, long epoch) {
            registrationChanged(id);
            event("ADDED", id, epoch, "");
        }

        @Override
        public void memberUpdated(String id, long epoch) {
            registrationChanged(id);
            event("UPDATED", id, epoch, "");
        }

        @Override
        public void memberReRegistered(String id, long epoch) {
            registrationChanged(id);
            event("REREGISTERED", id, epoch, "");
        }

        @Override
        public void memberRemoved(String id, long epoch) {
            registrationChanged(id);
            event("REMOVED", id, epoch, "");
        }

        @Override
        public void registrationFailed(String id, long epoch, Throwable cause) {
            registrationChanged(id);
            event("REGISTRATION_FAILED", id, epoch, String.valueOf(cause));
        }

        @Override
        public void refused(Refusal refusal) {
            event("REFUSED", refusal.memberId().isEmpty() ? "-" : refusal.memberId(), refusal.epoch(),
                    refusal.reason() + " " + refusal.key() + ": " + refusal.message());
        }

        @Override
        public void disconnected(String reason) {
            event("DISCONNECTED", memberId, 0, reason);
        }

        @Override
        public void reconnected(long revision, boolean resync) {
            event("RECONNECTED", memberId, 0, "revision " + revision + (resync ? " resync" : " resumed"));
        }
    }
}
