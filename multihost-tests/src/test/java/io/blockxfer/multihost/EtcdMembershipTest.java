package io.blockxfer.multihost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The kill, cut and pause rules with the peers finding each other through etcd: three member
 * containers ({@link MemberHost}), each running an etcd member of one three-member cluster (the
 * peer image's {@code etcd-server}, started by pid in the container) and a transport bound to that
 * cluster by a {@code Membership} ({@link EtcdDeployment}). No descriptor goes through the control
 * channel: every member writes to every member its membership registered, and verifies each write
 * by reading it back. The faulted member is one whose etcd member is a follower (see
 * {@link EtcdDeployment#follower()}); its etcd member shares its fate.
 *
 * <ul>
 *   <li>(m-a) {@code docker kill}: both others remove it within TTL + 1 s of the kill; their
 *       transfers to it fail, none stays pending;</li>
 *   <li>(m-b) {@code ip link set eth0 down} in its container ({@link MemberHost#linkDown()}): both
 *       others remove it within TTL + 1 s; it says its lease is lost; after {@code up} it publishes a new
 *       epoch, both others add it with that epoch, and their transfers to it are verified again;</li>
 *   <li>(m-c) {@code docker pause} for TTL + 3 s: both others remove it within TTL + 1 s; after
 *       {@code docker unpause} it says its lease is lost, publishes a new epoch, is added again with
 *       it, and the others' transfers to it are verified again.</li>
 * </ul>
 *
 * <p>After (m-b) and (m-c) the faulted member's own transfers recover too: its lease was lost, so
 * the others removed it and reset their side of its connections; when it publishes again its
 * membership re-registers each of them once ({@code REREGISTERED}, at the epoch it holds), its
 * transfers to each are verified again, and in the 3 s after none fails.
 *
 * <p>In every rule the two others keep verifying transfers between themselves while the fault lasts
 * (none fails), and at the end every running member has nothing in flight, every id reported
 * exactly once and no wrong byte. Timings go to {@code multihost-results.md}.
 */
// full tier: the multi-host suite: peers and etcd members in Docker containers of the project's engine and
// peer image (.ci/run sets both up; without them it skips); membership through a real etcd without
// containers runs in membership-tests
@Tag("full")
@Tag("multihost")
@ExtendWith(PeerHostsCondition.class)
@Timeout(600)
class EtcdMembershipTest {

    static final Duration TTL = Duration.ofSeconds(3);
    static final Duration FLAP = Duration.ofMillis(250);
    static final long REMOVAL_BOUND_MILLIS = TTL.toMillis() + 1_000;
    /** The transfer deadline: longer than a removal, so that the removal is what fails transfers to a lost member. */
    private static final Duration DEADLINE = Duration.ofSeconds(10);
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int MEMBERS = 3;

    @ParameterizedTest(name = "[m-a] {0}: a killed member is removed within TTL + 1 s and its transfers fail")
    @MethodSource("io.blockxfer.multihost.BackendProfile#enabled")
    void killedMember(String backend) throws Exception {
        try (Testbed bed = Testbed.open(backend, "m-kill", DEADLINE)) {
            EtcdDeployment d = EtcdDeployment.start(bed, MEMBERS, TTL, FLAP);
            MemberHost victim = d.follower();
            List<MemberHost> others = d.others(victim);
            Map<MemberHost, Integer> marks = d.marks();
            Map<MemberHost, MemberHost.Stats> before = EtcdDeployment.stats(others);

            long t0 = System.currentTimeMillis();
            victim.kill();
            long commandMillis = System.currentTimeMillis() - t0;
            long[] removal;
            try {
                removal = awaitRemoved(backend, others, marks, victim, t0, d.epoch(victim));
            } catch (AssertionError e) {
                abortIfUcxAbortedAnother(backend, others, e);
                throw e;
            }
            assertKeptWorking(backend, others, before);
            Thread.sleep(1_000); // transfers in flight at the removal are reported by now

            List<String> victimCounts = new ArrayList<>();
            for (MemberHost o : others) {
                MemberHost.Counts c = o.stats().of(victim.name());
                victimCounts.add(o + ": " + c.failed() + " failed");
                assertTrue(c.failed() > 0, backend + ": no transfer of " + o + " to the killed " + victim + " failed: " + c);
                assertEquals(0, c.pending(), backend + ": " + o + " has transfers to the removed " + victim + " pending");
            }
            EtcdDeployment.assertClean(backend, others, others);
            FaultReport.row(backend, "m-a", "docker kill of 1 of 3 members on etcd (TTL " + TTL.toSeconds() + " s)",
                    commandMillis, removal[0], removal[1], "removed by both others (bound "
                            + REMOVAL_BOUND_MILLIS + " ms); transfers to it " + victimCounts
                            + "; others verified throughout");
        }
    }

    @ParameterizedTest(name = "[m-b] {0}: a cut member is removed, and re-added once the cut heals")
    @MethodSource("io.blockxfer.multihost.BackendProfile#enabled")
    void cutMember(String backend) throws Exception {
        try (Testbed bed = Testbed.open(backend, "m-cut", DEADLINE)) {
            EtcdDeployment d = EtcdDeployment.start(bed, MEMBERS, TTL, FLAP);
            MemberHost victim = d.follower();
            List<MemberHost> others = d.others(victim);
            Map<MemberHost, Integer> marks = d.marks();
            Map<MemberHost, MemberHost.Stats> before = EtcdDeployment.stats(others);

            long t0 = System.currentTimeMillis();
            victim.linkDown();
            long commandMillis = System.currentTimeMillis() - t0;
            long[] removal = awaitRemoved(backend, others, marks, victim, t0, d.epoch(victim));
            EventFields lost = victim.awaitMember(marks.get(victim), "LEASE_LOST", victim.name(), WAIT);
            assertKeptWorking(backend, others, before);
            Thread.sleep(1_000);

            Map<MemberHost, Integer> healMarks = d.marks();
            Map<MemberHost, MemberHost.Stats> atHeal = EtcdDeployment.stats(d.members());
            long h0 = System.currentTimeMillis();
            victim.linkUp();
            long readd;
            String own;
            try {
                readd = awaitReadded(backend, d, victim, healMarks, atHeal, h0);
                own = assertOwnTransfersRecover(backend, d, victim, healMarks, atHeal.get(victim), h0);
                EtcdDeployment.assertClean(backend, d.members(), others);
            } catch (AssertionError failure) {
                // after the heal, a member may answer emulated RMA its peers gave up on during the cut
                abortIfUcxAborted(backend, d.members(), "after the heal", failure);
                throw failure;
            }
            FaultReport.row(backend, "m-b", "ip link set eth0 down in 1 of 3 members on etcd (TTL "
                    + TTL.toSeconds() + " s), then up", commandMillis, removal[0], removal[1],
                    "it saw its lease lost " + (lost.num("at") - t0) + " ms after the cut; after the heal both others"
                            + " added its new epoch and verified transfers to it within " + readd + " ms; " + own);
        }
    }

    @ParameterizedTest(name = "[m-c] {0}: a member paused past its TTL is removed, publishes again and is re-added")
    @MethodSource("io.blockxfer.multihost.BackendProfile#enabled")
    void pausedMember(String backend) throws Exception {
        try (Testbed bed = Testbed.open(backend, "m-pause", DEADLINE)) {
            EtcdDeployment d = EtcdDeployment.start(bed, MEMBERS, TTL, FLAP);
            MemberHost victim = d.follower();
            List<MemberHost> others = d.others(victim);
            Map<MemberHost, Integer> marks = d.marks();
            Map<MemberHost, MemberHost.Stats> before = EtcdDeployment.stats(others);

            long t0 = System.currentTimeMillis();
            victim.pause();
            long commandMillis = System.currentTimeMillis() - t0;
            long[] removal = awaitRemoved(backend, others, marks, victim, t0, d.epoch(victim));
            assertKeptWorking(backend, others, before);
            long hold = t0 + TTL.toMillis() + 3_000 - System.currentTimeMillis();
            if (hold > 0) {
                Thread.sleep(hold);
            }

            Map<MemberHost, Integer> thawMarks = d.marks();
            Map<MemberHost, MemberHost.Stats> atThaw = EtcdDeployment.stats(others);
            long u0 = System.currentTimeMillis();
            victim.unpause();
            long pausedMillis = u0 - t0;
            EventFields lost;
            try {
                lost = victim.awaitMember(thawMarks.get(victim), "LEASE_LOST", victim.name(), WAIT);
            } catch (AssertionError failure) {
                abortIfUcxAbortedTheThawed(backend, victim, others, failure);
                throw failure;
            }
            assertEquals(d.epoch(victim), lost.num("epoch"), backend + ": the lost lease was not its first epoch's");
            long readd;
            String own;
            try {
                atThaw.put(victim, victim.stats());
                readd = awaitReadded(backend, d, victim, thawMarks, atThaw, u0);
                own = assertOwnTransfersRecover(backend, d, victim, thawMarks, atThaw.get(victim), u0);
                EventFields pub = victim.members(thawMarks.get(victim), "PUBLISHED", victim.name()).getFirst();
                assertTrue(lost.num("at") <= pub.num("at"), backend + ": it published again before it said its"
                        + " lease was lost: " + lost + " / " + pub);
                EtcdDeployment.assertClean(backend, d.members(), others);
            } catch (AssertionError failure) {
                // the abort may come after it said its lease was lost, at any step after that
                abortIfUcxAbortedTheThawed(backend, victim, others, failure);
                throw failure;
            }
            FaultReport.row(backend, "m-c", "docker pause of 1 of 3 members on etcd for " + pausedMillis
                    + " ms (TTL " + TTL.toSeconds() + " s), then unpause", commandMillis, removal[0], removal[1],
                    "after the unpause it said its lease was lost in " + (lost.num("at") - u0) + " ms; both others"
                            + " added its new epoch and verified transfers to it within " + readd + " ms; " + own);
        }
    }

    /**
     * After {@code failure} in waiting for the thawed {@code victim} to say its lease was lost, or
     * for the others to add it again and its own transfers to recover: when
     * it is gone by UCX's abort in answering, after the unpause, emulated RMA of peers that gave up
     * on it during the pause ({@link PeerLog#emulatedRmaAbort}, the defect of rule (d) on the other
     * side), the case ends as aborted with that reason once the others have read no wrong byte and
     * seen no id end twice. Returns when it still answers; any other way of dying fails the test.
     */
    private static void abortIfUcxAbortedTheThawed(String backend, MemberHost victim, List<MemberHost> others,
            AssertionError failure) throws InterruptedException {
        List<MemberHost> all = new ArrayList<>(others);
        all.addFirst(victim);
        abortIfUcxAborted(backend, all, "after the unpause", failure);
    }

    /**
     * After {@code failure} in waiting for the removal of a killed member: when one of
     * {@code others} is gone too, and it died of UCX's abort in answering the killed member's
     * emulated RMA ({@link PeerLog#emulatedRmaAbort}, as a target may in rule (d)), the case ends as
     * aborted with that reason once the member left has read no wrong byte and seen no id end twice.
     * Two of the three etcd members are then gone, so the cluster has no quorum and nothing can be
     * removed: the removal rule cannot be checked in that run. Returns when no other is gone; any
     * other way of dying fails the test.
     */
    private static void abortIfUcxAbortedAnother(String backend, List<MemberHost> others, AssertionError failure)
            throws InterruptedException {
        abortIfUcxAborted(backend, others, "waiting for the removal of a killed member", failure);
    }

    /**
     * After {@code failure} while {@code what}: when one of {@code members} is gone by UCX's abort in
     * answering emulated RMA of peers that gave up on it ({@link PeerLog#emulatedRmaAbort}, rule (d)),
     * the case ends as aborted with that reason once the others have read no wrong byte and seen no
     * id end twice. Returns when every one still answers; any other way of dying fails the test.
     */
    private static void abortIfUcxAborted(String backend, List<MemberHost> members, String what,
            AssertionError failure) throws InterruptedException {
        List<String> aborts = new ArrayList<>();
        List<MemberHost> running = new ArrayList<>();
        for (MemberHost o : members) {
            Optional<String> abort = o.answersOrDiedOfUcxAbort(backend + ": " + what + " (" + failure.getMessage()
                    + ")");
            if (abort.isPresent()) {
                aborts.add(o + ": " + abort.get());
            } else {
                running.add(o);
            }
        }
        if (aborts.isEmpty()) {
            return;
        }
        for (MemberHost m : running) {
            MemberHost.Stats s = m.stats();
            assertEquals(0, s.violations(), backend + ": " + m + " saw an id end twice or unknown: "
                    + m.violationLines());
            s.peers().forEach((peer, c) -> assertEquals(0, c.mismatched(), backend + ": " + m
                    + " read wrong bytes from " + peer + ": " + m.violationLines()));
        }
        Assumptions.abort(backend + ": " + running + " read no wrong byte and saw no id end twice, but UCX aborted "
                + aborts + " " + PeerLog.UCX_ABORT_REASON + " (" + what + "); with a member and its etcd member"
                + " gone the rest of the case cannot be checked");
    }

    /**
     * Waits for each of {@code others} to remove {@code victim} (its epoch {@code epoch}) and checks
     * the bound.
     *
     * @return the first and the last removal, in ms after {@code t0}
     */
    private static long[] awaitRemoved(String backend, List<MemberHost> others, Map<MemberHost, Integer> marks,
            MemberHost victim, long t0, long epoch) {
        long first = Long.MAX_VALUE;
        long last = 0;
        for (MemberHost o : others) {
            EventFields removed = o.awaitMember(marks.get(o), "REMOVED", victim.name(), TTL.plus(WAIT));
            long took = removed.num("at") - t0;
            assertEquals(epoch, removed.num("epoch"), backend + ": " + o + " removed another epoch of " + victim);
            assertTrue(took <= REMOVAL_BOUND_MILLIS, backend + ": " + o + " removed " + victim + " " + took
                    + " ms after the fault; bound TTL + 1 s = " + REMOVAL_BOUND_MILLIS + " ms");
            first = Math.min(first, took);
            last = Math.max(last, took);
        }
        return new long[] {first, last};
    }

    /** Between the fault and now, each of {@code others} verified more transfers to the other, and none failed. */
    private static void assertKeptWorking(String backend, List<MemberHost> others,
            Map<MemberHost, MemberHost.Stats> before) {
        for (MemberHost o : others) {
            MemberHost.Stats now = o.stats();
            for (MemberHost p : others) {
                if (p != o) {
                    MemberHost.Counts was = before.get(o).of(p.name());
                    MemberHost.Counts is = now.of(p.name());
                    assertTrue(is.verified() > was.verified(), backend + ": " + o + " verified nothing to " + p
                            + " while the fault lasted: " + was + " -> " + is);
                    assertEquals(0, is.failed(), backend + ": " + o + "'s transfers to " + p + " failed: " + is);
                }
            }
        }
    }

    /**
     * After a healed fault: {@code victim} publishes a new epoch, each other member adds it with that
     * epoch, and their transfers to it are verified again.
     *
     * @return the time from {@code h0} until the last of those happened, in ms
     */
    private static long awaitReadded(String backend, EtcdDeployment d, MemberHost victim,
            Map<MemberHost, Integer> marks, Map<MemberHost, MemberHost.Stats> base, long h0)
            throws InterruptedException {
        EventFields pub = victim.awaitMember(marks.get(victim), "PUBLISHED", victim.name(), WAIT);
        assertTrue(pub.num("epoch") > d.epoch(victim), backend + ": " + victim + " published no new epoch: " + pub);
        for (MemberHost o : d.others(victim)) {
            EventFields added = o.awaitMember(marks.get(o), "ADDED", victim.name(), WAIT);
            assertEquals(pub.num("epoch"), added.num("epoch"), backend + ": " + o + " added another epoch of " + victim);
            d.awaitVerified(o, victim, base.get(o).of(victim.name()).verified(), WAIT);
        }
        return System.currentTimeMillis() - h0;
    }

    /**
     * After a healed fault, the faulted member's own transfers: it re-registers each other member
     * once at the epoch it holds (its own entry was lost, so they had removed it and torn down
     * their side), its transfers to each are verified again, and in the 3 s after that more are
     * verified and none fails.
     *
     * @return what it says in the report: when it re-registered and verified again, and the 3 s after
     */
    private static String assertOwnTransfersRecover(String backend, EtcdDeployment d, MemberHost victim,
            Map<MemberHost, Integer> marks, MemberHost.Stats base, long h0) throws InterruptedException {
        List<MemberHost> others = d.others(victim);
        for (MemberHost o : others) {
            EventFields again = victim.awaitMember(marks.get(victim), "REREGISTERED", o.name(), WAIT);
            assertEquals(d.epoch(o), again.num("epoch"), backend + ": " + victim + " re-registered another epoch of "
                    + o);
            assertEquals(1, victim.members(marks.get(victim), "REREGISTERED", o.name()).size(), backend + ": "
                    + victim + " re-registered " + o + " more than once after one loss");
            d.awaitVerified(victim, o, base.of(o.name()).verified(), WAIT);
        }
        long recoveredIn = System.currentTimeMillis() - h0;
        MemberHost.Stats recovered = victim.stats();
        Thread.sleep(3_000);
        MemberHost.Stats now = victim.stats();
        for (MemberHost o : others) {
            MemberHost.Counts was = recovered.of(o.name());
            MemberHost.Counts is = now.of(o.name());
            assertTrue(is.verified() > was.verified(), backend + ": " + victim + " verified nothing to " + o
                    + " in the 3 s after it verified again: " + was + " -> " + is);
            assertEquals(was.failed(), is.failed(), backend + ": " + victim + "'s transfers to " + o + " failed after"
                    + " it verified again: " + was + " -> " + is);
        }
        return "it re-registered both others and verified its own transfers to them again within " + recoveredIn
                + " ms; in the 3 s after, its own transfers " + transfers(victim, others, recovered)
                + "; since the fault: " + transfers(victim, others, base);
    }

    private static String transfers(MemberHost victim, List<MemberHost> others, MemberHost.Stats base) {
        MemberHost.Stats now = victim.stats();
        List<String> parts = new ArrayList<>();
        for (MemberHost o : others) {
            MemberHost.Counts was = base.of(o.name());
            MemberHost.Counts is = now.of(o.name());
            parts.add("to " + o + " " + (is.verified() - was.verified()) + " verified, " + (is.failed() - was.failed())
                    + " failed");
        }
        return String.join("; ", parts);
    }
}
