package io.blockxfer.tck.directory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.directory.Directory;
import io.blockxfer.directory.DirectoryEntry;
import io.blockxfer.directory.MemberEntry;
import io.blockxfer.directory.MemberResolutionException;
import io.blockxfer.directory.Membership;
import io.blockxfer.directory.Publication;
import io.blockxfer.directory.PublicationListener;
import io.blockxfer.directory.Refusal;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.PeerDescriptor;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
/**
 * The base of the membership rule groups ({@link MembershipRules}, {@link OnDemandRules}): the
 * members a rule starts (a loopback transport recorded, a membership on a client of its own, what
 * it heard), entries it writes, and the assertions and waits the rules share.
 *
 * <p><b>Thread safety:</b> JUnit makes one instance per rule; not shared.
 */
abstract class MembershipRuleGroup extends DirectoryRuleGroup {

    MembershipRuleGroup(DirectoryConformanceSuite suite) {
        super(suite);
    }

    /** A member of a rule: its transport (recorded), its membership, what it heard, its client. */
    record Node(RecordingTransport transport, Membership membership, MemberLog log, Directory client) {
        String id() {
            return membership.memberId();
        }

        long epoch() {
            return membership.epoch();
        }
    }

    final Node node(String base) {
        return node(base, UnaryOperator.identity());
    }

    final Node node(String base, UnaryOperator<Membership.Builder> tweak) {
        DirectoryFixture fx = fx();
        RecordingTransport t = new RecordingTransport(fx.transport(fx.agent(base)));
        MemberLog log = fx.log();
        Directory client = fx.client();
        Membership m = fx.start(tweak.apply(fx.builder(t, client, log)));
        return new Node(t, m, log, client);
    }

    static byte[] entry(String memberId, long epoch, PeerDescriptor d, @Nullable DeploymentKeyRing ring) {
        return MemberEntry.of(memberId, epoch, d).encode(ring);
    }

    /** Publishes a signed entry of {@code memberId} at {@code epoch} from {@code client}, made for its lease. */
    static Publication publishEntry(Directory client, String memberId, long epoch, PeerDescriptor d,
            DeploymentKeyRing ring) {
        return client.publish(memberId, lease -> MemberEntry.of(memberId, epoch, lease, d).encode(ring),
                DirectoryFixture.TTL, PublicationListener.NONE);
    }

    static DeploymentKeyRing randomRing(String keyId) {
        byte[] key = new byte[DeploymentKeyRing.MIN_KEY_BYTES];
        new SecureRandom().nextBytes(key);
        return DeploymentKeyRing.of(keyId, key);
    }

    /** Asserts that {@code node} refused an entry of {@code memberId} for {@code reason}. */
    final void assertRefused(Node node, String memberId, Refusal.Reason reason, String what) {
        DirectoryFixture fx = fx();
        assertTrue(node.log().refusals().stream().anyMatch(r -> r.memberId().equals(memberId) && r.reason() == reason),
                fx.msg(what + " was not refused as " + reason + "; refusals: " + node.log().refusals()));
    }

    /** Asserts that nothing about {@code peerIds} reached {@code node}'s transport. */
    final void assertNothingReached(Node node, String... peerIds) {
        DirectoryFixture fx = fx();
        for (String id : peerIds) {
            assertEquals(List.of(), node.transport().calls(id), fx.msg("a refused entry of '" + id + "' reached the"
                    + " transport"));
        }
    }

    /** A member joins; once {@code node} added it, every entry written before it was handled. */
    final Node joinAndWait(Node node) throws InterruptedException {
        Node marker = node("marker");
        fx().awaitMember(node.membership(), marker.id(), marker.epoch());
        return marker;
    }


    /** Resolves {@code id} through {@code node} and returns its epoch, failing the rule when it does not. */
    final long resolved(Node node, String id) throws InterruptedException {
        DirectoryFixture fx = fx();
        CompletableFuture<Long> f = node.membership().resolve(id);
        try {
            return f.get(fx.env.timeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError(fx.msg(node.id() + " could not resolve " + id + ": " + e.getCause()),
                    e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError(fx.msg(node.id() + " did not resolve " + id + " within "
                    + fx.env.timeout().toMillis() + " ms; it holds " + node.membership().members()), e);
        }
    }

    /** Resolves {@code id} through {@code node}, which must fail, and returns why. */
    final MemberResolutionException resolutionFailure(Node node, String id, String what)
            throws InterruptedException {
        DirectoryFixture fx = fx();
        CompletableFuture<Long> f = node.membership().resolve(id);
        long epoch;
        try {
            epoch = f.get(fx.env.timeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof MemberResolutionException m) {
                assertEquals(id, m.memberId(), fx.msg("the failed resolution of " + what + " names another member"));
                return m;
            }
            throw new AssertionError(fx.msg("the resolution of " + what + " failed with " + e.getCause()
                    + ", not a MemberResolutionException"), e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError(fx.msg("the resolution of " + what + " did not end within "
                    + fx.env.timeout().toMillis() + " ms"), e);
        }
        throw new AssertionError(fx.msg(node.id() + " resolved " + what + " (epoch " + epoch + "); its transport: "
                + node.transport().calls(id)));
    }

    /** Waits up to {@code limit} (not the rule timeout) for {@code condition}. */
    final void awaitWithin(BooleanSupplier condition, Duration limit, Supplier<String> what)
            throws InterruptedException {
        long end = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                throw new AssertionError(fx().msg(what.get() + " within " + limit.toMillis() + " ms"));
            }
            Thread.sleep(5);
        }
    }

    /** Lets the held members' traffic be sampled once more (a membership samples it every second). */
    static void letTrafficBeSampled() throws InterruptedException {
        Thread.sleep(1_500);
    }

    /** The value {@code watch} holds for {@code key} now; empty when none. */
    static byte[] held(WatchLog watch, String key) {
        DirectoryEntry e = watch.current(key);
        return e == null ? new byte[0] : e.value();
    }

    /** The lease {@code watch} reports for {@code key} now; 0 when none. */
    static long leaseOf(WatchLog watch, String key) {
        DirectoryEntry e = watch.current(key);
        return e == null ? 0 : e.lease();
    }
}
