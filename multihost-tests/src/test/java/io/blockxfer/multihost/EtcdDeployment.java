package io.blockxfer.multihost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.tck.process.TestCertificates;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;

/**
 * The member containers of one test as a deployment on etcd: each runs an etcd member, the members
 * form one cluster (one member per container, client and peer URLs on the container's address),
 * with mutual TLS between clients and members and between members as a production etcd runs
 * (certificates of a throwaway CA made here, {@link TestCertificates}, each member's for its
 * container's address and name, in its control folder), and each peer's transport is bound to that cluster by a {@code Membership} whose directory talks
 * to the etcd member of its own container. {@link #start} returns once every member has registered
 * every other through etcd and transfers between every pair are verified.
 *
 * <p><b>Why the own member only.</b> With every member's endpoint in each client's list, a member
 * that is cut off or frozen is a silent endpoint to the others: gRPC sends part of their lease
 * renewals there (they time out after the 5 s operation timeout) and their watch may sit on it
 * until gRPC keepalive notices, about 15 s. With a TTL of 3 s the others then lose their own leases
 * and see the removal 15 s late (measured here: see the module's README). A client of the local
 * member loses nothing when another host goes silent; its own member is cut or frozen with it.
 *
 * <p><b>Thread safety:</b> not thread-safe; one test thread uses it.
 */
final class EtcdDeployment {

    private static final Duration WAIT = Duration.ofSeconds(90);
    /** Where a member's TLS files are in its container (its control folder is {@code /ctl}). */
    private static final String TLS_FOLDER = "/ctl/etcd-tls";

    private final List<MemberHost> members;
    private final Map<MemberHost, String> etcdIds = new LinkedHashMap<>();
    private final Map<MemberHost, Long> epochs = new LinkedHashMap<>();
    private String leaderId = "0";

    private EtcdDeployment(List<MemberHost> members) {
        this.members = members;
    }

    /** Starts {@code n} member containers, their etcd cluster and their memberships. */
    static EtcdDeployment start(Testbed bed, int n, Duration ttl, Duration flap) throws InterruptedException {
        EtcdDeployment d = new EtcdDeployment(bed.members(n));
        Map<MemberHost, String> addresses = new LinkedHashMap<>();
        for (MemberHost m : d.members) {
            addresses.put(m, m.address());
        }
        writeCertificates(bed, addresses);
        String initial = addresses.entrySet().stream()
                .map(e -> e.getKey().name() + "=https://" + e.getValue() + ":" + EtcdMember.PEER_PORT)
                .collect(Collectors.joining(","));
        String token = "bx-" + bed.logDir().getFileName() + "-" + System.nanoTime();
        for (MemberHost m : d.members) {
            long pid = m.startEtcd(addresses.get(m), initial, token, TLS_FOLDER);
            System.out.println("[multihost] " + m.name() + ": etcd member pid " + pid + " on " + addresses.get(m));
        }
        d.awaitLeader(WAIT);
        String prefix = "/blockxfer/" + bed.logDir().getFileName() + "/";
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            Map<MemberHost, Future<Long>> joins = new LinkedHashMap<>();
            for (MemberHost m : d.members) {
                String local = "https://" + addresses.get(m) + ":" + EtcdMember.CLIENT_PORT;
                joins.put(m, pool.submit(() -> m.join(local, prefix, ttl, flap, TLS_FOLDER)));
            }
            for (Map.Entry<MemberHost, Future<Long>> e : joins.entrySet()) {
                d.epochs.put(e.getKey(), e.getValue().get());
            }
        } catch (ExecutionException e) {
            throw new AssertionError("a membership did not start: " + e.getCause(), e.getCause());
        } finally {
            pool.shutdown();
        }
        for (MemberHost m : d.members) {
            for (MemberHost o : d.others(m)) {
                EventFields added = m.awaitMember(0, "ADDED", o.name(), WAIT);
                assertEquals((long) d.epochs.get(o), added.num("epoch"), m + " added " + o + " with another epoch");
            }
        }
        for (MemberHost m : d.members) {
            for (MemberHost o : d.others(m)) {
                d.awaitVerified(m, o, 10, WAIT);
            }
        }
        return d;
    }

    /**
     * A throwaway CA, and for each member a certificate for its address and name (for servers and
     * clients both: etcd dials its peers with it, and the member's directory presents it) with its
     * PKCS#8 key, written into the member's control folder ({@link #TLS_FOLDER} in its container).
     */
    private static void writeCertificates(Testbed bed, Map<MemberHost, String> addresses) {
        TestCertificates.Ca ca = TestCertificates.ca("multihost-etcd-ca");
        Instant now = Instant.now();
        for (Map.Entry<MemberHost, String> e : addresses.entrySet()) {
            Path dir = bed.controlRoot().resolve(e.getKey().name()).resolve("etcd-tls");
            try {
                Files.createDirectories(dir);
            } catch (IOException x) {
                throw new UncheckedIOException(x);
            }
            ca.write(dir.resolve("ca.pem"));
            TestCertificates.Issued member = ca.issue(e.getKey().name(), TestCertificates.KeyKind.EC,
                    List.of(e.getKey().name()), List.of(e.getValue()), now.minus(Duration.ofHours(1)),
                    now.plus(Duration.ofDays(1)));
            member.writeCertificate(dir.resolve("member.pem"));
            member.writeKey(dir.resolve("member-key.pem"), TestCertificates.KeyFormat.PKCS8);
        }
    }

    /** Waits until every etcd member names the same leader, and notes every member's id. */
    private void awaitLeader(Duration timeout) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        List<String> last = new ArrayList<>();
        while (true) {
            last.clear();
            etcdIds.clear();
            List<String> leaders = new ArrayList<>();
            for (MemberHost m : members) {
                EventFields s = m.etcdStatus();
                etcdIds.put(m, s.get("id"));
                if (!leaders.contains(s.get("leader"))) {
                    leaders.add(s.get("leader"));
                }
                last.add(m.name() + ": " + s.line());
            }
            if (leaders.size() == 1 && !leaders.getFirst().equals("0") && !leaders.getFirst().equals("?")
                    && etcdIds.containsValue(leaders.getFirst())) {
                leaderId = leaders.getFirst();
                return;
            }
            if (System.nanoTime() - end > 0) {
                throw new AssertionError("the etcd members agreed on no leader within " + timeout.toSeconds() + " s: "
                        + last);
            }
            Thread.sleep(250);
        }
    }

    List<MemberHost> members() {
        return members;
    }

    List<MemberHost> others(MemberHost m) {
        return members.stream().filter(o -> o != m).toList();
    }

    long epoch(MemberHost m) {
        return epochs.get(m);
    }

    /**
     * The member to fault: the last one whose etcd member is not the leader. A leader change resets
     * every etcd lease to its full TTL, which would let a dead member stay up to about two TTLs;
     * faulting a follower keeps the leader, so the bound TTL + 1 s holds.
     */
    MemberHost follower() {
        for (int i = members.size() - 1; i >= 0; i--) {
            MemberHost m = members.get(i);
            if (!etcdIds.get(m).equals(leaderId)) {
                return m;
            }
        }
        throw new AssertionError("no etcd follower among " + members);
    }

    /** Each member's line index now, for {@link MemberHost#awaitMember}. */
    Map<MemberHost, Integer> marks() {
        Map<MemberHost, Integer> marks = new LinkedHashMap<>();
        for (MemberHost m : members) {
            marks.put(m, m.mark());
        }
        return marks;
    }

    /** The stats of each of {@code hosts}. */
    static Map<MemberHost, MemberHost.Stats> stats(List<MemberHost> hosts) {
        Map<MemberHost, MemberHost.Stats> all = new LinkedHashMap<>();
        for (MemberHost h : hosts) {
            all.put(h, h.stats());
        }
        return all;
    }

    /** Waits until {@code from} has verified more than {@code base} transfers to {@code to}. */
    void awaitVerified(MemberHost from, MemberHost to, long base, Duration timeout) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        while (true) {
            MemberHost.Counts c = from.stats().of(to.name());
            if (c.verified() > base) {
                return;
            }
            if (System.nanoTime() - end > 0) {
                throw new AssertionError(from + " verified no more than " + base + " transfers to " + to + " within "
                        + timeout.toSeconds() + " s: " + c);
            }
            Thread.sleep(200);
        }
    }

    /**
     * Stops new transfers everywhere and checks the end state of every member that runs: nothing in
     * flight, every id reported exactly once, no byte wrong, and no transfer between two of
     * {@code healthy} failed or read an old write back.
     */
    static void assertClean(String backend, List<MemberHost> running, List<MemberHost> healthy) {
        for (MemberHost m : running) {
            assertEquals(0, m.quiesce(), backend + ": " + m + " still has transfers in flight");
        }
        for (MemberHost m : running) {
            MemberHost.Stats s = m.stats();
            assertEquals(0, s.violations(), backend + ": " + m + " saw an id end twice or unknown: " + m.violationLines());
            assertEquals(List.of(), m.violationLines(), backend + ": " + m);
            for (Map.Entry<String, MemberHost.Counts> e : s.peers().entrySet()) {
                assertEquals(0, e.getValue().mismatched(), backend + ": " + m + " read wrong bytes from " + e.getKey()
                        + ": " + m.violationLines());
                assertEquals(0, e.getValue().pending(), backend + ": " + m + " has transfers to " + e.getKey()
                        + " pending");
            }
            if (healthy.contains(m)) {
                for (MemberHost o : healthy) {
                    if (o != m) {
                        MemberHost.Counts c = s.of(o.name());
                        assertEquals(0, c.failed(), backend + ": " + m + "'s transfers to the healthy " + o + ": " + c);
                        assertEquals(0, c.late(), backend + ": " + m + " read an old write back from " + o + ": " + c);
                        assertTrue(c.verified() > 0, backend + ": " + m + " verified nothing to " + o + ": " + c);
                    }
                }
            }
        }
    }
}
