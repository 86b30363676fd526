package io.blockxfer.tck.directory;

import static io.blockxfer.tck.directory.DirectoryRules.B20;
import static io.blockxfer.tck.directory.DirectoryRules.B32;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PollResult;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * B20 and B32: the limit on members held ({@code maxHeld}): past it, the member idle longest is
 * released, never one with a transfer in flight (B20); while every member held is busy the set
 * stays above the limit, and the first to become idle is released at the next sample (B32).
 *
 * <p><b>Thread safety:</b> JUnit makes one instance per rule; not shared.
 */
abstract class HeldSetRules extends MembershipRuleGroup {

    HeldSetRules(DirectoryConformanceSuite suite) {
        super(suite);
    }

    @DirectoryRuleTest(B20)
    public final void b20_releasedAtTheLimitOnlyWhenIdle() throws Exception {
        DirectoryFixture fx = fx();
        Node a = node("a", builder -> builder.followNone().maxHeld(2));
        Node b = node("b");
        Node c = node("c");
        Node d = node("d");
        resolved(a, b.id());
        resolved(a, c.id());
        Thread.sleep(fx.env.quiet().toMillis());
        assertEquals(Set.of(b.id(), c.id()), a.membership().members().keySet(), fx.msg(a.id() + ", limited to 2,"
                + " does not hold the 2 members it resolved: " + a.log().lines()));
        assertEquals(0, a.log().count("released "), fx.msg(a.id() + " released a member before its limit of 2: "
                + a.log().lines()));
        letTrafficBeSampled();
        fx.assertWriteLands(a.transport(), b.id(), b.transport(), (byte) 20); // b is used, c idle since resolved
        resolved(a, d.id());
        a.log().await("released " + c.id() + " ", fx.msg(a.id() + " did not release " + c.id() + ", idle longest,"
                + " when a third member passed its limit of 2"));
        assertEquals(0, a.log().count("released " + b.id() + " "), fx.msg(a.id() + " released " + b.id()
                + ", which it had just used: " + a.log().lines()));
        assertEquals(Set.of(b.id(), d.id()), a.membership().members().keySet(), fx.msg(a.id() + " holds the wrong"
                + " members after a release"));
        assertEquals("remove " + c.id(), a.transport().calls(c.id()).getLast(), fx.msg(a.id() + "'s transport still"
                + " holds " + c.id() + ", released: " + a.transport().calls(c.id())));
        assertEquals(DataTransport.NOT_SUBMITTED, a.transport().writeBlocks(c.id(), new int[] {0}, new int[] {1}),
                fx.msg("a transfer to a released member was submitted"));
        // d gets a transfer that stays in flight, and is used before b: idle longer, but busy
        long stuck;
        LoopbackStall.stall(d.transport(), true);
        try {
            stuck = a.transport().writeBlocks(d.id(), new int[] {0}, new int[] {1});
            assertNotEquals(DataTransport.NOT_SUBMITTED, stuck, fx.msg("no transfer to " + d.id()));
            letTrafficBeSampled();
            fx.assertWriteLands(a.transport(), b.id(), b.transport(), (byte) 21);
            long releases = a.log().count("released ");
            resolved(a, c.id());
            fx.await(() -> a.log().count("released ") > releases, () -> a.id() + " released no member when " + c.id()
                    + " passed its limit of 2 again: " + a.log().lines());
            assertEquals(0, a.log().count("released " + d.id() + " "), fx.msg(a.id() + " released " + d.id()
                    + " while a transfer to it was in flight: " + a.log().lines()));
            assertEquals(1, a.log().count("released " + b.id() + " "), fx.msg(a.id() + " did not release " + b.id()
                    + ", its only idle member, when " + c.id() + " passed its limit of 2 again: " + a.log().lines()));
            assertEquals(Set.of(c.id(), d.id()), a.membership().members().keySet(), fx.msg(a.id() + " holds the"
                    + " wrong members after a release"));
        } finally {
            LoopbackStall.stall(d.transport(), false);
        }
        awaitEnded(a, d.id(), stuck);
        // release, then resolve again
        assertTrue(a.membership().release(d.id()), fx.msg("release of " + d.id() + ", held, answered false"));
        a.log().await("released " + d.id() + " ", fx.msg(a.id() + " did not say it released " + d.id()));
        assertFalse(a.membership().members().containsKey(d.id()), fx.msg(a.id() + " holds " + d.id()
                + " after releasing it"));
        assertEquals("remove " + d.id(), a.transport().calls(d.id()).getLast(), fx.msg(a.id() + "'s transport still"
                + " holds " + d.id() + ", released: " + a.transport().calls(d.id())));
        assertFalse(a.membership().release(b.id()), fx.msg("release of " + b.id() + ", released already, answered"
                + " true"));
        assertEquals(d.epoch(), resolved(a, d.id()), fx.msg("resolving a released member again gave another epoch"));
        fx.assertWriteLands(a.transport(), d.id(), d.transport(), (byte) 22);
    }

    @DirectoryRuleTest(B32)
    public final void b32_everyMemberBusyKeepsTheSetAboveItsLimitUntilOneIsIdle() throws Exception {
        DirectoryFixture fx = fx();
        Node a = node("a", builder -> builder.followNone().maxHeld(2));
        List<Node> targets = List.of(node("b"), node("c"), node("d"));
        Map<String, Long> stuck = new java.util.LinkedHashMap<>();
        try {
            // each member gets a transfer that stays in flight, the third passing the limit of 2
            for (Node t : targets) {
                resolved(a, t.id());
                LoopbackStall.stall(t.transport(), true);
                long id = a.transport().writeBlocks(t.id(), new int[] {0}, new int[] {1});
                assertNotEquals(DataTransport.NOT_SUBMITTED, id, fx.msg("no transfer to " + t.id()));
                stuck.put(t.id(), id);
            }
            letTrafficBeSampled();
            letTrafficBeSampled();
            assertEquals(0, a.log().count("released "), fx.msg(a.id() + " released a member with a transfer in flight"
                    + " while every member it held was busy: " + a.log().lines()));
            assertEquals(stuck.keySet(), a.membership().members().keySet(), fx.msg(a.id() + ", every member busy,"
                    + " does not hold all 3 above its limit of 2"));

            // one member's transfer ends: it is the one released, at the next sample
            Node idle = targets.get(1);
            LoopbackStall.stall(idle.transport(), false);
            awaitEnded(a, idle.id(), stuck.getOrDefault(idle.id(), -1L));
            a.log().await("released " + idle.id() + " ", fx.msg(a.id() + " did not release " + idle.id() + ", idle"
                    + " once its transfer ended, while it held 3 members above its limit of 2"));
            Thread.sleep(fx.env.quiet().toMillis());
            assertEquals(1, a.log().count("released "), fx.msg(a.id() + " released more than the member that became"
                    + " idle: " + a.log().lines()));
            assertEquals(Set.of(targets.get(0).id(), targets.get(2).id()), a.membership().members().keySet(),
                    fx.msg(a.id() + " holds the wrong members once one was idle"));
        } finally {
            for (Node t : targets) {
                LoopbackStall.stall(t.transport(), false);
            }
        }
        for (Node t : List.of(targets.get(0), targets.get(2))) {
            awaitEnded(a, t.id(), stuck.getOrDefault(t.id(), -1L));
        }
    }

    /** Polls {@code peer} on {@code node} until transfer {@code id} ended, and asserts that it ended done. */
    private void awaitEnded(Node node, String peer, long id) throws InterruptedException {
        DirectoryFixture fx = fx();
        List<Long> done = new ArrayList<>();
        List<Long> failed = new ArrayList<>();
        long end = System.nanoTime() + fx.env.timeout().toNanos();
        while (done.size() + failed.size() == 0 && System.nanoTime() - end < 0) {
            PollResult r = node.transport().poll(peer);
            Arrays.stream(r.done()).forEach(done::add);
            Arrays.stream(r.failed()).forEach(failed::add);
            Thread.sleep(2);
        }
        assertEquals(List.of(id), done, fx.msg("the transfer held in flight to " + peer + " did not end done (failed: "
                + failed + ")"));
    }
}
