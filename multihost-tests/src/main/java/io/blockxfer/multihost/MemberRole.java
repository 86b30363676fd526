package io.blockxfer.multihost;

import io.blockxfer.directory.DirectoryUnavailableException;
import io.blockxfer.directory.Membership;
import io.blockxfer.directory.MembershipListener;
import io.blockxfer.directory.Refusal;
import io.blockxfer.directory.etcd.EtcdDirectory;
import io.blockxfer.tck.BlockPattern;
import io.blockxfer.transport.DataTransport;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * The member side of the peer program: an etcd member beside the transport ({@link EtcdMember}),
 * and the transport bound by a {@link Membership} to the etcd cluster that the members of all peer
 * containers form, so that the peers find each other through etcd instead of the test handing
 * descriptors around. The agent name is the member id, {@code m<slot>} with a slot below
 * {@value #MAX_MEMBERS}.
 *
 * <p><b>Transfers.</b> Once joined, the member writes to every member its membership has
 * registered: a round writes a fresh {@link BlockPattern} into the peer's block number
 * {@code slot} (only this member writes there), then reads that block back and compares it with the
 * pattern, so the bytes that arrived are verified. One round per peer is under way at a time, a new
 * one at most every {@value #ROUND_MILLIS} ms. Every id a submit returns must end exactly once; a
 * report of an id that is not in flight is a violation. The contract lets the bytes of a failed
 * transfer land later (a cut peer's TCP delivers them once the cut heals): those of a failed WRITE
 * in the peer's block, those of a failed READ in this member's read-back block, whole or in part
 * (the segments that were still queued). A failed write's native operation may also still read its
 * source block after the failure was reported, and the next rounds refill that block, so what it
 * lands late may be pieces of any later round's pattern. So a read-back that holds exactly the
 * pattern of an earlier failed write of this member to that block, or exactly the pattern an
 * earlier failed read of it was reading, or, once a transfer to that peer failed, that is made,
 * 8-byte word by word, of the round's own pattern and the patterns of this member's rounds to that
 * peer, a word at the seam of two pieces holding its first bytes from one of those patterns and the
 * rest from another (the pieces are TCP segments, which end anywhere; each word of a pattern being
 * a SplitMix64 value of its seed and position, a word no pattern explains is a wrong byte), is
 * counted as {@code late}, not as a mismatch; any other wrong byte is a mismatch, and its event
 * says what the block held instead.
 *
 * <p>Commands: {@code ETCD <name> <address> <initial-cluster> <token> [<tls-folder>]} (starts the etcd
 * member, with mutual TLS from the folder's files ({@link EtcdMember.Tls}) where one is named;
 * answers {@code pid=}), {@code ETCDSTATUS} (answers {@code id= leader=}, see
 * {@link EtcdMember#status()}), {@code JOIN <endpoints> <prefix> <ttl-seconds> <flap-millis>
 * [<tls-folder>]} (builds the directory, presenting the member's certificate where a folder is named,
 * and the membership, tried again every 500 ms while etcd cannot be reached; answers
 * {@code epoch=}), {@code STATS} (answers {@code violations=} and, per peer,
 * {@code <peer>=submitted/done/failed/verified/mismatched/notSubmitted/pending/lastVerifiedMillis/late}),
 * {@code QUIESCE} (no new rounds; answers {@code inflight=} once none is in flight, or after 20 s),
 * {@code RESUME}, {@code PING}. Events: {@code E MEMBER kind=<K> member=<id> epoch=<e> at=<millis>
 * why=<detail>} for every {@link MembershipListener} call (kinds {@code PUBLISHED},
 * {@code LEASE_LOST}, {@code PUBLISH_FAILED}, {@code ADDED}, {@code UPDATED}, {@code REMOVED},
 * {@code REREGISTERED}, {@code REGISTRATION_FAILED}, {@code REFUSED}, {@code DISCONNECTED}, {@code RECONNECTED},
 * {@code START_FAILED}), {@code E VIOLATION}, {@code E MISMATCH} and {@code E LATE}. {@code at} is the wall clock,
 * which the containers share with the test.
 *
 * <p><b>Thread safety:</b> commands run on the program's main thread, transfers on one writer
 * thread, the listener on the membership's thread; the counts are guarded by one lock.
 */
final class MemberRole implements PeerMain.Role {

    /** The most members of a deployment (slots {@code m0} to {@code m7}). */
    static final int MAX_MEMBERS = 8;
    /** The region: blocks others write, sources of this member's writes, targets of its read-backs. */
    static final int BLOCKS = 3 * MAX_MEMBERS;
    private static final long ROUND_MILLIS = 20;
    private static final int MAX_LATE_CANDIDATES = 4096;
    private static final String ETCD_BINARY = "/usr/bin/etcd";

    private final DataTransport transport;
    private final EventSink events;
    private final String memberId;
    private final int slot;
    private final Object lock = new Object();
    private final Map<Long, Pending> inFlight = new TreeMap<>();
    private final Map<String, PeerCounts> peers = new TreeMap<>();
    private long violations;
    private long seeds;
    private volatile @Nullable EtcdMember etcd;
    private volatile @Nullable EtcdDirectory directory;
    private volatile @Nullable Membership membership;
    private volatile @Nullable Thread writer;
    private volatile boolean quiesced;
    private volatile boolean running = true;

    MemberRole(DataTransport transport, String memberId, EventSink events) {
        this.transport = transport;
        this.events = events;
        this.memberId = memberId;
        this.slot = slotOf(memberId);
    }

    /** The slot of member id {@code m<slot>}. */
    static int slotOf(String memberId) {
        if (!memberId.matches("m[0-9]") || Integer.parseInt(memberId.substring(1)) >= MAX_MEMBERS) {
            throw new IllegalArgumentException("member ids are m0 to m" + (MAX_MEMBERS - 1) + ": " + memberId);
        }
        return Integer.parseInt(memberId.substring(1));
    }

    @Override
    public String handle(String[] cmd) throws IOException {
        return switch (cmd[0]) {
            case "ETCD" -> {
                if (etcd != null) {
                    throw new IllegalStateException("the etcd member runs already");
                }
                EtcdMember e = EtcdMember.start(ETCD_BINARY, arg(cmd, 1), arg(cmd, 2), arg(cmd, 3), arg(cmd, 4),
                        tls(cmd, 5));
                etcd = e;
                yield "pid=" + e.pid();
            }
            case "ETCDSTATUS" -> {
                EtcdMember e = etcd;
                if (e == null) {
                    throw new IllegalStateException("no etcd member: ETCD first");
                }
                yield e.status() + " alive=" + e.isAlive();
            }
            case "JOIN" -> "epoch=" + join(arg(cmd, 1), arg(cmd, 2), Duration.ofSeconds(Long.parseLong(arg(cmd, 3))),
                    Duration.ofMillis(Long.parseLong(arg(cmd, 4))), tls(cmd, 5));
            case "STATS" -> stats();
            case "QUIESCE" -> {
                // the writer starts a round only under the lock, and only while not quiesced
                synchronized (lock) {
                    quiesced = true;
                }
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                int left;
                while ((left = inFlightCount()) > 0 && System.nanoTime() < until) {
                    sleepMillis(10);
                }
                yield "inflight=" + left;
            }
            case "RESUME" -> {
                quiesced = false;
                yield "resumed";
            }
            case "PING" -> "pong";
            default -> throw new IllegalArgumentException("unknown command " + cmd[0]);
        };
    }

    private static String arg(String[] cmd, int i) {
        if (i >= cmd.length) {
            throw new IllegalArgumentException(cmd[0] + " needs " + i + " arguments, got " + (cmd.length - 1));
        }
        return cmd[i];
    }

    /** The TLS folder an optional argument names ({@link EtcdMember.Tls}), or null for plain text. */
    private static EtcdMember.@Nullable Tls tls(String[] cmd, int i) {
        return i < cmd.length ? new EtcdMember.Tls(Path.of(cmd[i])) : null;
    }

    private long join(String endpoints, String prefix, Duration ttl, Duration flap, EtcdMember.@Nullable Tls tls) {
        if (membership != null) {
            throw new IllegalStateException("joined already");
        }
        EtcdDirectory.Builder b = EtcdDirectory.builder(endpoints).prefix(prefix).name(memberId)
                .operationTimeout(Duration.ofSeconds(5));
        if (tls != null) {
            b.trustedCa(tls.ca()).clientCertificate(tls.certificate(), tls.key());
        }
        EtcdDirectory d = b.build();
        directory = d;
        while (true) {
            try {
                Membership m = Membership.builder(transport, d).ttl(ttl).flapInterval(flap)
                        .listener(new Listener()).build();
                membership = m;
                writer = Thread.ofPlatform().name("member-writer").start(this::writeLoop);
                return m.epoch();
            } catch (DirectoryUnavailableException e) {
                event("START_FAILED", memberId, 0, String.valueOf(e.getMessage()));
                sleepMillis(500);
            }
        }
    }

    private int inFlightCount() {
        synchronized (lock) {
            return inFlight.size();
        }
    }

    private String stats() {
        StringBuilder sb = new StringBuilder();
        synchronized (lock) {
            sb.append("violations=").append(violations);
            peers.forEach((peer, c) -> {
                long pending = inFlight.values().stream().filter(p -> p.peer.equals(peer)).count();
                sb.append(' ').append(peer).append('=').append(c.submitted).append('/').append(c.done).append('/')
                        .append(c.failed).append('/').append(c.verified).append('/').append(c.mismatched).append('/')
                        .append(c.notSubmitted).append('/').append(pending).append('/').append(c.lastVerifiedMillis)
                        .append('/').append(c.late);
            });
        }
        return sb.toString();
    }

    private void writeLoop() {
        try {
            while (running) {
                Membership m = membership;
                if (m != null && !quiesced && !m.isClosed()) {
                    long now = System.nanoTime();
                    for (String peer : List.copyOf(m.members().keySet())) {
                        synchronized (lock) {
                            PeerCounts c = peers.computeIfAbsent(peer, p -> new PeerCounts());
                            // quiesced again under the lock: a QUIESCE that found nothing in flight
                            // must not see a round this loop began before it
                            if (!quiesced && !c.busy && now - c.nextAt >= 0) {
                                startRound(peer, c, now);
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
        } catch (RuntimeException | Error e) {
            synchronized (lock) {
                violations++;
            }
            events.emit("E VIOLATION what=the_writer_died:_" + oneWord(String.valueOf(e)));
            throw e;
        }
    }

    /** Fills the source block of {@code peer} with a fresh pattern and writes it. Holds the lock. */
    private void startRound(String peer, PeerCounts c, long now) {
        int peerSlot = slotOf(peer);
        long seed = BlockPattern.seed(slot * 1_000_003L + peerSlot, (int) ++seeds);
        BlockPattern.fill(transport.region().block(MAX_MEMBERS + peerSlot), seed);
        long id = transport.writeBlocks(peer, new int[] {MAX_MEMBERS + peerSlot}, new int[] {slot});
        c.nextAt = now + TimeUnit.MILLISECONDS.toNanos(ROUND_MILLIS);
        if (id == DataTransport.NOT_SUBMITTED) {
            c.notSubmitted++;
            return;
        }
        c.busy = true;
        c.submitted++;
        inFlight.put(id, new Pending(peer, true, seed));
        c.earlier.add(seed);
        if (c.earlier.size() > MAX_LATE_CANDIDATES) {
            c.earlier.remove(c.earlier.iterator().next());
        }
    }

    /** The patterns a failed transfer to the peer of {@code c} may land late: its rounds' and its failed reads'. */
    private static Set<Long> roundsAndLateCandidates(PeerCounts c) {
        Set<Long> all = new LinkedHashSet<>(c.earlier);
        all.addAll(c.lateCandidates);
        return all;
    }

    /**
     * Whether every 8-byte word of {@code got} is the same word of the pattern of {@code seed} or of
     * one of {@code candidates}, or a seam of two of them: a block that pieces of late-landing failed
     * transfers overwrote in part. Pieces land as the TCP segments that carried them, so a piece may
     * begin inside a word ({@link #seam}).
     */
    static boolean piecesOf(MemorySegment got, long seed, Set<Long> candidates) {
        return (got.byteSize() & 7) == 0 && firstUnexplainedWord(got, seed, candidates) < 0;
    }

    /**
     * The offset of the first word of {@code got} that is neither that word of the pattern of
     * {@code seed} or of one of {@code candidates} nor a {@link #seam} of two of them, or -1.
     */
    static long firstUnexplainedWord(MemorySegment got, long seed, Set<Long> candidates) {
        long words = got.byteSize() >>> 3;
        for (long w = 0; w < words; w++) {
            long actual = got.get(ValueLayout.JAVA_LONG_UNALIGNED, w << 3);
            if (actual == BlockPattern.word(seed, w)) {
                continue;
            }
            long index = w;
            if (candidates.stream().noneMatch(old -> actual == BlockPattern.word(old, index))
                    && !seam(actual, w, seed, candidates)) {
                return w << 3;
            }
        }
        return -1;
    }

    /**
     * Whether word {@code index} of a block, {@code actual}, holds its first 1 to 7 bytes (in memory
     * order) from that word of one pattern and the rest from that word of another, the patterns
     * being {@code seed}'s and {@code candidates}'. A word no pattern explains matches a pattern's
     * word in 7 of its bytes by chance once in 2^56.
     */
    static boolean seam(long actual, long index, long seed, Set<Long> candidates) {
        List<Long> words = new ArrayList<>(candidates.size() + 1);
        words.add(BlockPattern.word(seed, index));
        candidates.forEach(c -> words.add(BlockPattern.word(c, index)));
        for (int k = 1; k < Long.BYTES; k++) {
            long head = firstBytesMask(k);
            boolean headMatches = false;
            boolean tailMatches = false;
            for (long word : words) {
                headMatches |= ((actual ^ word) & head) == 0;
                tailMatches |= ((actual ^ word) & ~head) == 0;
            }
            if (headMatches && tailMatches) {
                return true;
            }
        }
        return false;
    }

    /** The bits of the first {@code k} bytes in memory order of a word read in the platform's order. */
    private static long firstBytesMask(int k) {
        long low = (1L << (8 * k)) - 1;
        return ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? low : Long.reverseBytes(low);
    }

    /**
     * What a mismatched read-back held: {@code zeros} (nothing landed), {@code an_earlier_round}
     * (the whole pattern of an earlier round of this member to that peer) or {@code other}.
     */
    private static String heldInstead(MemorySegment got, PeerCounts c) {
        boolean zeros = true;
        for (long i = 0; i < got.byteSize() && zeros; i++) {
            zeros = got.get(ValueLayout.JAVA_BYTE, i) == 0;
        }
        if (zeros) {
            return "zeros";
        }
        return c.earlier.stream().anyMatch(old -> BlockPattern.firstMismatch(got, old) < 0) ? "an_earlier_round" : "other";
    }

    private void onTerminal(long id, boolean success) {
        synchronized (lock) {
            Pending p = inFlight.remove(id);
            if (p == null) {
                violations++;
                events.emit("E VIOLATION what=transfer_" + id + "_reported_" + (success ? "done" : "failed")
                        + "_but_not_in_flight");
                return;
            }
            PeerCounts c = peers.computeIfAbsent(p.peer, x -> new PeerCounts());
            if (!success) {
                c.failed++;
                c.busy = false;
                // a failed write's pattern may land in the peer's block, and a failed read's (the
                // pattern its write had put there) in the read-back block, later
                c.lateCandidates.add(p.seed);
                if (c.lateCandidates.size() > MAX_LATE_CANDIDATES) {
                    c.lateCandidates.remove(c.lateCandidates.iterator().next());
                }
                return;
            }
            c.done++;
            int readBack = 2 * MAX_MEMBERS + slotOf(p.peer);
            if (p.write) {
                transport.region().block(readBack).fill((byte) 0);
                long read = transport.readBlocks(p.peer, new int[] {readBack}, new int[] {slot});
                if (read == DataTransport.NOT_SUBMITTED) {
                    c.notSubmitted++;
                    c.busy = false;
                    return;
                }
                c.submitted++;
                inFlight.put(read, new Pending(p.peer, false, p.seed));
                return;
            }
            MemorySegment got = transport.region().block(readBack);
            long at = BlockPattern.firstMismatch(got, p.seed);
            if (at < 0) {
                c.verified++;
                c.lastVerifiedMillis = System.currentTimeMillis();
            } else if (c.lateCandidates.stream().anyMatch(old -> BlockPattern.firstMismatch(got, old) < 0)) {
                c.late++;
                events.emit("E LATE peer=" + p.peer + " what=the_block_holds_the_pattern_of_an_earlier_failed_transfer");
            } else if (c.failed > 0 && piecesOf(got, p.seed, roundsAndLateCandidates(c))) {
                c.late++;
                events.emit("E LATE peer=" + p.peer + " at=" + at + " what=the_block_holds_pieces_of_earlier_failed"
                        + "_transfers_beside_its_own");
            } else {
                c.mismatched++;
                events.emit("E MISMATCH peer=" + p.peer + " at=" + at + " held=" + heldInstead(got, c)
                        + " unexplained_word_at=" + firstUnexplainedWord(got, p.seed, roundsAndLateCandidates(c)));
            }
            c.busy = false;
        }
    }

    private void event(String kind, String member, long epoch, String detail) {
        events.emit("E MEMBER kind=" + kind + " member=" + member + " epoch=" + epoch + " at="
                + System.currentTimeMillis() + " why=" + oneWord(detail));
    }

    private static String oneWord(String s) {
        return s.isEmpty() ? "-" : s.replaceAll("\\s+", "_");
    }

    private static void sleepMillis(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        running = false;
        Thread w = writer;
        if (w != null) {
            try {
                w.join(TimeUnit.SECONDS.toMillis(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        Membership m = membership;
        if (m != null) {
            m.close();
        }
        EtcdDirectory d = directory;
        if (d != null) {
            d.close();
        }
        transport.close();
        EtcdMember e = etcd;
        if (e != null) {
            e.close();
        }
    }

    /** A transfer in flight: to whom, which half of a round, the round's pattern. */
    private record Pending(String peer, boolean write, long seed) {
    }

    /** One peer's round state and counts. Guarded by the role's lock. */
    private static final class PeerCounts {
        boolean busy;
        long nextAt;
        long submitted;
        long done;
        long failed;
        long verified;
        long mismatched;
        long notSubmitted;
        long lastVerifiedMillis;
        long late;
        /**
         * The patterns a failed transfer of this member to the peer may still land, oldest first:
         * each failed write's, and for each failed read the pattern its round had written.
         */
        final Set<Long> lateCandidates = new LinkedHashSet<>();
        /** The patterns of this member's earlier rounds to the peer, for a mismatch's diagnosis. */
        final Set<Long> earlier = new LinkedHashSet<>();
    }

    /** Sends every membership call as an event line. */
    private final class Listener implements MembershipListener {
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
            event("ADDED", id, epoch, "");
        }

        @Override
        public void memberUpdated(String id, long epoch) {
            event("UPDATED", id, epoch, "");
        }

        @Override
        public void memberReRegistered(String id, long epoch) {
            event("REREGISTERED", id, epoch, "");
        }

        @Override
        public void memberRemoved(String id, long epoch) {
            event("REMOVED", id, epoch, "");
        }

        @Override
        public void registrationFailed(String id, long epoch, Throwable cause) {
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
