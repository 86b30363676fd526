package io.blockxfer.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.membership.MemberProcess.Event;
import io.blockxfer.tck.process.EtcdCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/**
 * The faults of the membership suite, shared by {@link MembershipFaultTest} (members killed and
 * frozen, an etcd member killed) and {@link EtcdOutageMembershipTest} (every etcd member down), each
 * class with an etcd cluster of its own so that the two run in test JVMs side by side.
 *
 * <p>Memberships binding real transports in separate processes ({@link MemberMain} child JVMs, UCX or
 * NIXL over shared memory, so transfers between them move bytes) through a real three-member etcd,
 * across the faults of the issue: a member SIGKILLed, one etcd member killed and restarted, every
 * etcd member down and back, a member frozen past its TTL. Every member writes to every other and
 * verifies each write on arrival; every transfer id is checked to end exactly once; every
 * membership event is counted per member. Timings are printed ({@code member kill:}, {@code etcd
 * member restart:}, {@code etcd outage:}, {@code member pause:}) for the README.
 *
 * <p>The members use a TTL of 2 s (etcd's shortest) and a flap interval of 250 ms, so that a
 * removal ({@code TTL after the last renewal + etcd's 500 ms expiry check + the flap interval})
 * stays within TTL + 1 s of a kill.
 *
 * <p>The etcd cluster runs as a production one does: client and peer TLS with client certificates
 * ({@code --client-cert-auth}) and authentication, the members reaching it as a user whose role may
 * read and write the deployments' prefixes only, configured by etcdctl's variables
 * ({@link MemberDeployment#etcdEnvironment()}).
 */
abstract class MembershipFaults {

    static final Duration TTL = Duration.ofSeconds(2);
    static final Duration FLAP = Duration.ofMillis(250);
    private static final Duration MESH = Duration.ofSeconds(60);
    private static final Duration WAIT = Duration.ofSeconds(60);

    private static EtcdCluster cluster;
    private MemberDeployment deployment;

    @BeforeAll
    static void startEtcd() {
        // as in production: client and peer TLS with client certificates, and a user whose role may
        // read and write the deployments' prefixes only (plain etcd: transport-directory-etcd's tests)
        cluster = EtcdCluster.builder(3).tls().auth().start();
        cluster.addUser(MemberDeployment.USER, MemberDeployment.PASSWORD, MemberDeployment.PREFIXES);
    }

    @AfterAll
    static void stopEtcd() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @AfterEach
    void endMembers() {
        if (deployment != null) {
            deployment.close();
        }
        // a test that killed etcd members and failed before restarting them leaves the next one a cluster
        for (int i = 0; i < cluster.size(); i++) {
            if (cluster.pid(i) < 0) {
                cluster.restart(i);
            }
        }
        cluster.awaitAllHealthy(WAIT);
    }

    final MemberDeployment deploy(String backend) {
        deployment = MemberDeployment.of(backend, cluster, endpoints(cluster), TTL, FLAP);
        return deployment;
    }

    /** Where the members reach {@code etcd}: its members; a subclass may put a proxy between. */
    String endpoints(EtcdCluster etcd) {
        return etcd.endpoints();
    }

    /** The deployment of the running test. */
    final MemberDeployment deployment() {
        return deployment;
    }

    /** The class's etcd cluster, started before its tests. */
    static EtcdCluster cluster() {
        return cluster;
    }

    // ---- 1. a member SIGKILLed ----------------------------------------------------------------

    /**
     * m0 and m1 stay; {@code n} victims take part in the transfers and are SIGKILLed one after the
     * other (the first starts with m0 and m1, each later one joins after the kill before it).
     */
    final void kills(String backend, int n) {
        MemberDeployment d = deploy(backend);
        List<MemberProcess> survivors = d.start("m0", "m1", "m2").subList(0, 2);
        List<Long> everywhere = new ArrayList<>();
        List<String> victims = new ArrayList<>();
        Map<String, Long> killedAt = new HashMap<>();
        for (int k = 0; k < n; k++) {
            String id = "m" + (2 + k);
            victims.add(id);
            MemberProcess victim = k == 0 ? d.member(id) : d.start(id).getFirst();
            List<MemberProcess> group = new ArrayList<>(survivors);
            group.add(victim);
            d.awaitMesh(group, MESH);
            // a kill anywhere in the renewal cycle (renewals come every TTL/3)
            MemberDeployment.sleep(200 + (k * 211L) % (TTL.toMillis() / 3));
            long killed = System.currentTimeMillis();
            killedAt.put(id, killed);
            victim.kill();
            long worst = 0;
            for (MemberProcess s : survivors) {
                Event removed = s.awaitEvent(0, e -> e.is("REMOVED", id), TTL.plus(WAIT), "REMOVED " + id);
                long took = removed.millis() - killed;
                assertTrue(took <= TTL.toMillis() + 1000, s.id() + " removed " + id + " " + took + " ms after the"
                        + " kill; TTL " + TTL.toMillis() + " ms");
                worst = Math.max(worst, took);
            }
            everywhere.add(worst);
        }
        StringBuilder victimTransfers = new StringBuilder();
        for (MemberProcess s : survivors) {
            assertEquals(0, s.quiesce(), s.id() + " still has transfers in flight");
            MemberStats st = s.stats();
            assertIntact(s, st);
            String other = survivors.stream().filter(o -> o != s).findFirst().orElseThrow().id();
            assertEquals(0, st.peer(other).failed, s.id() + "'s transfers to the live " + other + ": " + st);
            List<Event> events = s.events();
            MembershipLedger ledger = MembershipLedger.of(events);
            assertEquals(List.of(), ledger.problems(), s.id() + ": " + s.describeEvents());
            assertEquals(Set.of(other), ledger.held().keySet(), s.id() + ": " + s.describeEvents());
            assertEquals(1, MembershipLedger.count(events, "ADDED", other), s.describeEvents());
            for (String v : victims) {
                assertEquals(1, MembershipLedger.count(events, "ADDED", v), s.id() + ": " + s.describeEvents());
                assertEquals(1, MembershipLedger.count(events, "REMOVED", v), s.id() + ": " + s.describeEvents());
                MemberStats.Peer p = st.peer(v);
                // the transport notices the death itself (UCX: its keepalive, every 500 ms; NIXL: the next
                // transfer's error) before the lease runs out: transfers to the victim fail from then on,
                // and those in flight at its removal fail with it
                assertTrue(p.failed > 0, s.id() + " -> " + v + ": no transfer to the dead member failed: " + st);
                victimTransfers.append(' ').append(s.id()).append("->").append(v).append(": ").append(p.failed)
                        .append(" failed (first ").append(p.failed == 0 ? "-" : (p.firstFailMillis - killedAt.get(v))
                                + " ms after the kill").append("), last done ")
                        .append(p.lastDoneMillis - killedAt.get(v)).append(" ms after;");
            }
            assertEquals(0, MembershipLedger.count(events, "LEASE_LOST", s.id()), s.describeEvents());
            assertEquals(1, MembershipLedger.count(events, "PUBLISHED", s.id()), s.describeEvents());
        }
        List<Long> sorted = everywhere.stream().sorted().toList();
        System.out.println("member kill: " + backend + ", TTL " + TTL.toMillis() + " ms, flap " + FLAP.toMillis()
                + " ms: kill to removed everywhere (ms) " + everywhere + ", median " + sorted.get(sorted.size() / 2)
                + ", range " + sorted.getFirst() + "-" + sorted.getLast() + "; transfers to the victims:"
                + victimTransfers);
    }

    // ---- 2. one etcd member killed and restarted ---------------------------------------------------

    final void etcdMemberRestart(String backend, String which) {
        MemberDeployment d = deploy(backend);
        List<MemberProcess> group = d.start("m0", "m1", "m2");
        d.awaitMesh(group, MESH);
        Map<String, Integer> marks = marks(group);
        Map<String, MemberStats> before = stats(group);
        int leader = cluster.leader();
        int victim = which.equals("leader") ? leader : (leader + 1) % cluster.size();
        long killed = System.currentTimeMillis();
        cluster.kill(victim);
        // down for two TTLs: every lease must be renewed through the other two members meanwhile
        MemberDeployment.sleep(2 * TTL.toMillis());
        cluster.restart(victim);
        cluster.awaitAllHealthy(WAIT);
        long back = System.currentTimeMillis();
        MemberDeployment.sleep(TTL.toMillis());
        // the watches go on: an entry written now reaches every member (which refuses it: not an entry)
        d.writeRaw("probe", "not an entry");
        for (MemberProcess m : group) {
            m.awaitEvent(marks.get(m.id()), e -> e.is("REFUSED", "probe"), WAIT, "the refusal of the probe");
        }
        Map<String, MemberStats> after = stats(group);
        StringBuilder connections = new StringBuilder();
        for (MemberProcess m : group) {
            List<Event> since = m.eventsFrom(marks.get(m.id()));
            assertEquals(List.of(), MembershipLedger.changes(since), m.id() + " saw membership changes");
            connections.append(' ').append(m.id()).append(": ").append(MembershipLedger.count(since, "DISCONNECTED",
                    m.id())).append(" disconnects;");
            MemberStats b = before.get(m.id());
            MemberStats a = after.get(m.id());
            assertIntact(m, a);
            for (MemberProcess o : group) {
                if (o != m) {
                    assertEquals(0, a.peer(o.id()).failed, m.id() + " -> " + o.id() + ": " + a);
                    assertTrue(a.peer(o.id()).verified > b.peer(o.id()).verified, m.id() + " -> " + o.id()
                            + ": no round verified while etcd's " + which + " was down: " + b + " then " + a);
                }
            }
        }
        for (MemberProcess m : group) {
            assertEquals(0, m.quiesce());
            assertIntact(m, m.stats());
            List<Event> events = m.events();
            MembershipLedger ledger = MembershipLedger.of(events);
            assertEquals(List.of(), ledger.problems(), m.id() + ": " + m.describeEvents());
            assertEquals(group.stream().map(MemberProcess::id).filter(o -> !o.equals(m.id())).collect(
                    Collectors.toSet()), ledger.held().keySet(), m.id() + ": " + m.describeEvents());
            assertEquals(1, MembershipLedger.count(events, "REFUSED", "probe"), m.id() + " refused the probe not once: "
                    + m.describeEvents());
        }
        System.out.println("etcd member restart: " + backend + ", the " + which + " (m" + (victim + 1) + ") killed for "
                + (back - killed) + " ms until healthy again; no membership change;" + connections);
    }

    /**
     * The publications of {@code p}'s own entry reported failed since its mark: each may have landed
     * (etcd committed the write, its answer missed the deadline) and been seen by the others.
     */
    private static long failedPublications(MemberProcess p, Map<String, Integer> marks) {
        return MembershipLedger.count(p.eventsFrom(marks.get(p.id())), "PUBLISH_FAILED", p.id());
    }

    // ---- 3. every etcd member down, then back (EtcdOutageMembershipTest) ------------------------------

    /**
     * m0 and m1 live through the outage; m2 is SIGKILLed a second into it; m3 starts during it
     * (its membership cannot start until etcd is back, and tries again).
     */
    final void outage(String backend, Duration down) {
        MemberDeployment d = deploy(backend);
        List<MemberProcess> first = d.start("m0", "m1", "m2");
        d.awaitMesh(first, MESH);
        MemberProcess m0 = d.member("m0");
        MemberProcess m1 = d.member("m1");
        MemberProcess m2 = d.member("m2");
        List<MemberProcess> live = List.of(m0, m1);
        Map<String, Integer> marks = marks(live);
        Map<String, Long> oldEpochs = Map.of("m0", lastEpoch(m0), "m1", lastEpoch(m1));
        Map<String, MemberStats> before = stats(live);

        long downAt = System.currentTimeMillis();
        for (int i = 0; i < cluster.size(); i++) {
            cluster.kill(i);
        }
        MemberDeployment.sleep(1000);
        long victimKilled = System.currentTimeMillis();
        m2.kill();
        MemberProcess m3 = d.launch("m3").getFirst();
        MemberDeployment.sleep(Math.max(0, downAt + down.toMillis() / 2 - System.currentTimeMillis()));
        Map<String, MemberStats> middle = stats(live);
        MemberDeployment.sleep(Math.max(0, downAt + down.toMillis() - System.currentTimeMillis()));
        Map<String, MemberStats> end = stats(live);

        long restartAt = System.currentTimeMillis();
        for (int i = 0; i < cluster.size(); i++) {
            cluster.restart(i);
        }
        cluster.awaitAllHealthy(WAIT);
        long upAt = System.currentTimeMillis();
        m3.awaitReady(MemberDeployment.START);
        long m3Ready = System.currentTimeMillis();

        // transfers among the known peers went on the whole time
        for (MemberProcess m : live) {
            String other = m == m0 ? "m1" : "m0";
            long b = before.get(m.id()).peer(other).verified;
            long mid = middle.get(m.id()).peer(other).verified;
            long e = end.get(m.id()).peer(other).verified;
            assertTrue(b < mid && mid < e, m.id() + " -> " + other + ": rounds verified before, in the middle and at"
                    + " the end of the outage: " + b + ", " + mid + ", " + e);
            assertEquals(0, end.get(m.id()).peer(other).failed, m.id() + " -> " + other + " during the outage: "
                    + end.get(m.id()));
            List<Event> during = m.eventsFrom(marks.get(m.id())).stream().filter(x -> x.millis() < upAt).toList();
            assertEquals(List.of(), during.stream().filter(x -> Set.of("ADDED", "UPDATED", "REMOVED")
                    .contains(x.kind())).toList(), m.id() + ": the peers changed while etcd was away");
        }

        // after the resync: m2 removed, m3 added, m0 and m1 re-published (their leases ran out) and
        // updated at each other, each once
        Map<String, Long> republished = new HashMap<>();
        for (MemberProcess m : live) {
            Event lost = m.awaitEvent(marks.get(m.id()), e -> e.is("LEASE_LOST", m.id()), WAIT, "LEASE_LOST");
            Event again = m.awaitEvent(marks.get(m.id()), e -> e.is("PUBLISHED", m.id())
                    && e.epoch() > oldEpochs.get(m.id()), WAIT, "the re-publication");
            assertTrue(lost.millis() < upAt, m.id() + "'s lease reported lost only after the outage: " + lost);
            republished.put(m.id(), again.epoch());
        }
        long removedMax = 0;
        long addedMax = 0;
        long reconnectedMax = 0;
        for (MemberProcess m : live) {
            String other = m == m0 ? "m1" : "m0";
            int mark = marks.get(m.id());
            Event removed = m.awaitEvent(mark, e -> e.is("REMOVED", "m2"), WAIT, "REMOVED m2");
            Event added = m.awaitEvent(mark, e -> e.is("ADDED", "m3"), WAIT, "ADDED m3");
            // updated to its new epoch; or added at it, after a publication of its that was reported
            // failed had landed and its lease was revoked (removed in between)
            m.awaitEvent(mark, e -> (e.is("UPDATED", other) || e.is("ADDED", other))
                    && e.epoch() == republished.get(other), WAIT, "UPDATED (or ADDED) " + other + " at its new epoch");
            Event back = m.awaitEvent(mark, e -> e.kind().equals("RECONNECTED") && e.millis() >= restartAt, WAIT,
                    "RECONNECTED");
            removedMax = Math.max(removedMax, removed.millis() - upAt);
            addedMax = Math.max(addedMax, added.millis() - upAt);
            reconnectedMax = Math.max(reconnectedMax, back.millis() - upAt);
        }
        for (String id : List.of("m0", "m1")) {
            m3.awaitEvent(0, e -> (e.kind().equals("ADDED") || e.kind().equals("UPDATED")) && e.member().equals(id)
                    && e.epoch() == republished.get(id), WAIT, id + " at its new epoch");
        }
        // late events (a duplicate, a lease of before the outage running out) would come within TTL + 1 s:
        // the leases etcd revived at its restart have run out by m2's removal, the last event awaited
        MemberDeployment.sleep(TTL.toMillis() + 1000);

        for (MemberProcess m : List.of(m0, m1, m3)) {
            assertEquals(0, m.quiesce(), m.id() + " still has transfers in flight");
            MemberStats st = m.stats();
            assertIntact(m, st);
            for (MemberProcess o : List.of(m0, m1, m3)) {
                if (o != m) {
                    assertEquals(0, st.peer(o.id()).unexplained, m.id() + " -> " + o.id()
                            + ": failures not due to a change of its registration: " + st);
                }
            }
            List<Event> events = m.events();
            MembershipLedger ledger = MembershipLedger.of(events);
            assertEquals(List.of(), ledger.problems(), m.id() + ": " + m.describeEvents());
            Set<String> others = live.contains(m) ? Set.of(m == m0 ? "m1" : "m0", "m3") : Set.of("m0", "m1");
            assertEquals(others, ledger.held().keySet(), m.id() + ": " + m.describeEvents());
            for (String o : others) {
                if (!o.equals("m3")) {
                    assertEquals(republished.get(o), ledger.held().get(o), m.id() + " holds " + o + " at an old"
                            + " epoch: " + m.describeEvents());
                }
                long added = MembershipLedger.count(events, "ADDED", o);
                long failed = o.equals("m3") ? 0 : failedPublications(o.equals("m0") ? m0 : m1, marks);
                assertTrue(added >= 1 && added <= 1 + failed, m.id() + " added " + o + " " + added + " times after "
                        + failed + " failed publications of its: " + m.describeEvents());
            }
        }
        for (MemberProcess m : live) {
            List<Event> since = m.eventsFrom(marks.get(m.id()));
            String other = m == m0 ? "m1" : "m0";
            assertEquals(1, MembershipLedger.count(since, "LEASE_LOST", m.id()), m.describeEvents());
            assertEquals(1, MembershipLedger.count(since, "PUBLISHED", m.id()), m.describeEvents());
            // one change to the other's new epoch; and for each publication of the other's that was
            // reported failed around etcd's return but landed (its answer lost), one more: an update
            // to that epoch, or its removal (the failed publication's lease revoked) and a re-add
            long failed = failedPublications(m == m0 ? m1 : m0, marks);
            long changes = MembershipLedger.count(since, "UPDATED", other) + MembershipLedger.count(since, "ADDED", other);
            long removals = MembershipLedger.count(since, "REMOVED", other);
            assertTrue(changes >= 1 && changes <= 1 + failed && removals <= failed, changes + " updates or re-adds and "
                    + removals + " removals of " + other + " after " + failed + " failed publications of its: "
                    + m.describeEvents());
            assertEquals(1, MembershipLedger.count(since, "REMOVED", "m2"), m.describeEvents());
            assertEquals(0, MembershipLedger.count(since, "REGISTRATION_FAILED", other), m.describeEvents());
            assertEquals(0, m.stats().peer("m2").pending, m.id() + "'s transfers to the dead m2 never ended");
        }
        long startFailures = MembershipLedger.count(m3.events(), "START_FAILED", "m3");
        System.out.println("etcd outage: " + backend + ", every member down " + (restartAt - downAt) + " ms (m2 killed "
                + (victimKilled - downAt) + " ms in, m3 started then; rounds verified m0->m1 during it: "
                + (end.get("m0").peer("m1").verified - before.get("m0").peer("m1").verified) + "); leases lost "
                + (m0.events("LEASE_LOST", "m0").getLast().millis() - downAt) + "/"
                + (m1.events("LEASE_LOST", "m1").getLast().millis() - downAt) + " ms after the kill; from healthy ("
                + (upAt - restartAt) + " ms after the restart): watches back " + reconnectedMax + " ms, re-published "
                + (m0.events("PUBLISHED", "m0").getLast().millis() - upAt) + "/"
                + (m1.events("PUBLISHED", "m1").getLast().millis() - upAt) + " ms, m2 removed " + removedMax
                + " ms, m3 added " + addedMax + " ms (its membership started " + (m3Ready - upAt) + " ms after, "
                + startFailures + " failed starts before)");
    }

    // ---- 4. a member frozen past its TTL ---------------------------------------------------------

    final void paused(String backend) {
        MemberDeployment d = deploy(backend);
        List<MemberProcess> group = d.start("m0", "m1", "m2");
        d.awaitMesh(group, MESH);
        MemberProcess m0 = d.member("m0");
        MemberProcess m1 = d.member("m1");
        MemberProcess m2 = d.member("m2");
        List<MemberProcess> others = List.of(m0, m1);
        Map<String, Integer> marks = marks(group);
        long oldEpoch = lastEpoch(m2);

        long frozenAt = System.currentTimeMillis();
        m2.suspend();
        long removedMax = 0;
        for (MemberProcess m : others) {
            Event removed = m.awaitEvent(marks.get(m.id()), e -> e.is("REMOVED", "m2"), TTL.plus(WAIT), "REMOVED m2");
            long took = removed.millis() - frozenAt;
            assertTrue(took <= TTL.toMillis() + 1000, m.id() + " removed the frozen m2 " + took + " ms after the"
                    + " SIGSTOP; TTL " + TTL.toMillis() + " ms");
            removedMax = Math.max(removedMax, took);
        }
        // frozen past its TTL: etcd has deleted its entry (the others saw it); thawed half a second later,
        // its next renewal finds its lease gone
        MemberDeployment.sleep(500);
        long thawedAt = System.currentTimeMillis();
        m2.resume();

        Event lost = m2.awaitEvent(marks.get("m2"), e -> e.is("LEASE_LOST", "m2"), WAIT, "LEASE_LOST");
        Event again = m2.awaitEvent(marks.get("m2"), e -> e.is("PUBLISHED", "m2") && e.epoch() > oldEpoch, WAIT,
                "the re-publication");
        long addedMax = 0;
        for (MemberProcess m : others) {
            Event added = m.awaitEvent(marks.get(m.id()), e -> e.is("ADDED", "m2") && e.epoch() == again.epoch(), WAIT,
                    "ADDED m2 at its new epoch");
            addedMax = Math.max(addedMax, added.millis() - thawedAt);
            // the others removed m2 and tore down their side of its connections: m2 registers them again
            m2.awaitEvent(marks.get("m2"), e -> e.is("REREGISTERED", m.id()), WAIT, "REREGISTERED " + m.id());
        }
        // transfers reach m2 and leave it again, and late events (a second loss, a duplicate) would come within
        // TTL + 1 s (the longest a lease outlives its last renewal; etcd's leader does not change here)
        Map<String, MemberStats> atReAdd = stats(group);
        MemberDeployment.sleep(TTL.toMillis() + 1000);
        String warning = "its entry of epoch " + oldEpoch + " is gone";
        assertEquals(1, m2.stderrLines(warning).size(), "m2's log says once that its entry is gone ('" + warning
                + "'); it said: " + m2.stderrLines("membership 'm2'"));

        for (MemberProcess m : group) {
            assertEquals(0, m.quiesce(), m.id() + " still has transfers in flight");
            MemberStats st = m.stats();
            assertIntact(m, st);
            for (MemberProcess o : group) {
                if (o != m) {
                    assertEquals(0, st.peer(o.id()).unexplained, m.id() + " -> " + o.id()
                            + ": failures not due to a change of its registration: " + st);
                }
            }
            MembershipLedger ledger = MembershipLedger.of(m.events());
            assertEquals(List.of(), ledger.problems(), m.id() + ": " + m.describeEvents());
            List<Event> since = m.eventsFrom(marks.get(m.id()));
            if (m == m2) {
                List<String> changes = MembershipLedger.changes(since).stream().map(e -> e.kind() + " " + e.member())
                        .toList();
                assertEquals(4, changes.size(), "m2's own changes: " + m.describeEvents());
                assertEquals(List.of("LEASE_LOST m2", "PUBLISHED m2"), changes.subList(0, 2), "m2's own changes: "
                        + m.describeEvents());
                assertEquals(Set.of("REREGISTERED m0", "REREGISTERED m1"), Set.copyOf(changes.subList(2, 4)),
                        "m2 re-registers each of the others once: " + m.describeEvents());
                assertEquals(Set.of("m0", "m1"), ledger.held().keySet(), m.describeEvents());
                for (MemberProcess o : others) {
                    assertTrue(st.peer(o.id()).verified > atReAdd.get("m2").peer(o.id()).verified,
                            "m2 verified no round to " + o.id() + " after it re-registered it: " + st);
                }
            } else {
                assertEquals(List.of("REMOVED m2", "ADDED m2"), MembershipLedger.changes(since).stream()
                        .map(e -> e.kind() + " " + e.member()).toList(), m.id() + ": " + m.describeEvents());
                assertTrue(st.peer("m2").verified > atReAdd.get(m.id()).peer("m2").verified,
                        m.id() + " verified no round to m2 after it was added again: " + st);
                assertEquals(0, st.peer(m == m0 ? "m1" : "m0").failed, m.id() + ": " + st);
            }
        }
        System.out.println("member pause: " + backend + ", m2 frozen " + (thawedAt - frozenAt) + " ms (TTL "
                + TTL.toMillis() + " ms): removed everywhere " + removedMax + " ms after the SIGSTOP; after the SIGCONT"
                + " its lease reported lost in " + (lost.millis() - thawedAt) + " ms (" + lost.detail()
                + "), re-published in " + (again.millis() - thawedAt) + " ms, added again everywhere in " + addedMax
                + " ms");
    }

    // ---- helpers ---------------------------------------------------------------------------------

    /** No id reported twice or unknown, no wrong byte, nothing in flight that was not reported. */
    private static void assertIntact(MemberProcess m, MemberStats st) {
        assertEquals(0, st.violations(), m.id() + ": transfer ids reported twice or unknown: " + m.describeEvents());
        for (Map.Entry<String, MemberStats.Peer> e : st.peers().entrySet()) {
            MemberStats.Peer p = e.getValue();
            assertEquals(0, p.mismatched, m.id() + " -> " + e.getKey() + ": rounds read back wrong: " + st);
            assertEquals(p.submitted, p.done + p.failed + p.pending, m.id() + " -> " + e.getKey() + ": " + st);
        }
        assertEquals(List.of(), m.events().stream().filter(x -> x.kind().equals("VIOLATION")
                || x.kind().equals("MISMATCH")).toList(), m.id());
    }

    private static Map<String, Integer> marks(List<MemberProcess> group) {
        return group.stream().collect(Collectors.toMap(MemberProcess::id, m -> m.events().size()));
    }

    private static Map<String, MemberStats> stats(List<MemberProcess> group) {
        return group.stream().collect(Collectors.toMap(MemberProcess::id, MemberProcess::stats));
    }

    private static long lastEpoch(MemberProcess m) {
        return m.events("PUBLISHED", m.id()).getLast().epoch();
    }
}
