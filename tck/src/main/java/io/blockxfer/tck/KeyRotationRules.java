package io.blockxfer.tck;

import static io.blockxfer.tck.ConformanceRules.K1;
import static io.blockxfer.tck.ConformanceRules.K2;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.fail;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.UnauthenticatedPeerException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * K: deployment keys rotate without downtime ({@link DeploymentKeyRing}): while a ring holds
 * several keys, descriptors signed under each are accepted, each checked with the key it names;
 * once a key is dropped, descriptors signed with it are refused. Targets get rings of their own,
 * so in the two-process harness the descriptors are signed in other processes.
 *
 * <p><b>Thread safety:</b> JUnit makes one instance per rule; not shared.
 */
abstract class KeyRotationRules extends RuleGroup {

    /** Makes the key ids of every run unique in this JVM, so no two runs share a key id. */
    private static final AtomicInteger RUNS = new AtomicInteger();

    KeyRotationRules(TransportConformanceSuite suite) {
        super(suite);
    }

    /** Fresh keys under ids unique to this run, one per name, in order. */
    private static Map<String, byte[]> keys(Fixture fx, String... names) {
        String run = fx.rule.name().toLowerCase(java.util.Locale.ROOT) + "-" + ProcessHandle.current().pid() + "-"
                + RUNS.incrementAndGet();
        Map<String, byte[]> keys = new LinkedHashMap<>();
        for (String n : names) {
            keys.put("tck-" + run + "-" + n, TckKeys.randomKey());
        }
        return keys;
    }

    /** The id of the {@code index}th key of {@code keys}. */
    private static String id(Map<String, byte[]> keys, int index) {
        return List.copyOf(keys.keySet()).get(index);
    }

    private static byte[] key(Map<String, byte[]> keys, String id) {
        return Objects.requireNonNull(keys.get(id), id);
    }

    /** A ring of {@code keys} (id to key bytes), signing with {@code signing} and accepting {@code others}. */
    private static DeploymentKeyRing ring(Map<String, byte[]> keys, String signing, String... others) {
        Map<String, byte[]> chosen = new LinkedHashMap<>();
        chosen.put(signing, key(keys, signing));
        for (String o : others) {
            chosen.put(o, key(keys, o));
        }
        return TckKeys.ring(chosen);
    }

    /** A target opened with {@code ring}, whose descriptor must be signed with the ring's signing key. */
    private static TargetPeer target(Fixture fx, DeploymentKeyRing ring) {
        fx.keyRing = ring;
        TargetPeer t = fx.target();
        PeerDescriptor d = t.descriptor();
        if (!d.keyId().equals(java.util.Optional.of(ring.signingKeyId()))) {
            fail(fx.msg("a target opened with " + ring + " handed out a descriptor " + (d.isSigned()
                    ? "signed with key '" + d.keyId().orElseThrow() + "'" : "that is unsigned")
                    + "; it must be signed with the ring's signing key"));
        }
        return t;
    }

    /** Registers {@code target} as {@code peerId}, which must be accepted, then moves a block to it. */
    private static void accepted(Fixture fx, DataTransport t, DeploymentKeyRing ring, String peerId,
            TargetPeer target, int block, boolean async) {
        String key = target.descriptor().keyId().orElseThrow();
        try {
            if (async) {
                t.addPeerAsync(peerId, target.descriptor()).get(fx.env.timeout().toMillis(), TimeUnit.MILLISECONDS);
            } else {
                t.addPeer(peerId, target.descriptor());
            }
        } catch (UnauthenticatedPeerException e) {
            throw new AssertionError(fx.msg("a transport with " + ring + " rejected peer '" + peerId + "', signed with"
                    + " key '" + key + "' of its ring: " + e.getMessage()), e);
        } catch (ExecutionException e) {
            throw new AssertionError(fx.msg("a transport with " + ring + " failed the asynchronous registration of"
                    + " peer '" + peerId + "', signed with key '" + key + "' of its ring: " + e.getCause()), e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError(fx.msg("addPeerAsync of peer '" + peerId + "' did not complete within "
                    + fx.env.timeout().toMillis() + " ms"), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(fx.msg("interrupted"), e);
        }
        long id = fx.write(t, peerId, block, block);
        fx.assertAllDone(fx.await(t, peerId, List.of(id)));
        fx.assertTargetBlock(target, block, BlockPattern.seed(Fixture.LOCAL, block), "transfer " + id + " to peer '"
                + peerId + "', signed with key '" + key + "'");
    }

    /**
     * Offers {@code d} as {@code peerId} through addPeer and addPeerAsync; both must refuse it as
     * unauthenticated (for {@code reason}, unless null), and nothing may be registered.
     */
    private static void refused(Fixture fx, DataTransport t, String peerId, PeerDescriptor d,
            UnauthenticatedPeerException.@Nullable Reason reason, String what) {
        try {
            t.addPeer(peerId, d);
            fail(fx.msg("addPeer accepted " + what));
        } catch (UnauthenticatedPeerException e) {
            if (reason != null) {
                assertEquals(reason, e.reason(), fx.msg("addPeer of " + what + ": " + e.getMessage()));
            }
        }
        try {
            CompletableFuture<Void> f = t.addPeerAsync(peerId, d);
            try {
                f.get(fx.env.timeout().toMillis(), TimeUnit.MILLISECONDS);
                fail(fx.msg("addPeerAsync accepted " + what));
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnauthenticatedPeerException u)) {
                    throw new AssertionError(fx.msg("addPeerAsync of " + what + " failed with " + e.getCause()
                            + "; expected UnauthenticatedPeerException"), e.getCause());
                }
                if (reason != null) {
                    assertEquals(reason, u.reason(), fx.msg("addPeerAsync of " + what + ": " + u.getMessage()));
                }
            } catch (TimeoutException e) {
                fail(fx.msg("addPeerAsync of " + what + " did not end within " + fx.env.timeout().toMillis() + " ms"));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(fx.msg("interrupted"), e);
            }
        } catch (UnauthenticatedPeerException e) {
            if (reason != null) {
                assertEquals(reason, e.reason(), fx.msg("addPeerAsync of " + what + ": " + e.getMessage()));
            }
        }
        assertEquals(DataTransport.NOT_SUBMITTED, t.writeBlocks(peerId, new int[] {0}, new int[] {0}),
                fx.msg("a WRITE to peer '" + peerId + "' after it was refused (" + what + ")"));
        assertSame(PollResult.EMPTY, fx.poll(t, peerId), fx.msg("a poll of peer '" + peerId + "' after it was refused"));
    }

    @RuleTest(K1)
    public final void k1_everyKeyOfTheRingVerifiesWhatItSigned() {
        Fixture fx = fx();
        Map<String, byte[]> keys = keys(fx, "k1", "k2", "k3");
        String k1 = id(keys, 0);
        String k2 = id(keys, 1);
        String k3 = id(keys, 2);
        // the initiator signs with the newest key and still accepts the two before it; each target
        // is a process at another step of the rotation, signing with another key
        DeploymentKeyRing mine = ring(keys, k3, k2, k1);
        TargetPeer a = target(fx, ring(keys, k1, k3));
        TargetPeer b = target(fx, ring(keys, k2, k1));
        TargetPeer c = target(fx, ring(keys, k3, k2));
        fx.keyRing = mine;
        DataTransport t = fx.initiator();
        accepted(fx, t, mine, "a", a, 1, false);
        accepted(fx, t, mine, "b", b, 2, false);
        accepted(fx, t, mine, "c", c, 3, true);
        // each MAC must be checked with the key the descriptor names: one made with another key of
        // the ring, under this name, is a forgery
        PeerDescriptor plain = a.descriptor().unsigned();
        refused(fx, t, "named-k1-by-k3", plain.signedWith(DeploymentKeyRing.of(k1, key(keys, k3))), null,
                "a descriptor naming key '" + k1 + "' whose MAC was made with key '" + k3 + "' (the signing key)");
        refused(fx, t, "named-k3-by-k1", plain.signedWith(DeploymentKeyRing.of(k3, key(keys, k1))), null,
                "a descriptor naming key '" + k3 + "' (the signing key) whose MAC was made with key '" + k1 + "'");
        refused(fx, t, "named-k2-by-k1", plain.signedWith(DeploymentKeyRing.of(k2, key(keys, k1))), null,
                "a descriptor naming key '" + k2 + "' whose MAC was made with key '" + k1 + "'");
        fx.assertQuiet(t, null, "after every transfer was reported");
    }

    @RuleTest(K2)
    public final void k2_aDroppedKeyIsRefused() {
        Fixture fx = fx();
        Map<String, byte[]> keys = keys(fx, "old", "new");
        String old = id(keys, 0);
        String fresh = id(keys, 1);
        TargetPeer straggler = target(fx, ring(keys, old));
        TargetPeer rotated = target(fx, ring(keys, fresh, old));
        // step 1 of the rotation: the new key is accepted, the old one still signs
        DeploymentKeyRing before = ring(keys, old, fresh);
        fx.keyRing = before;
        DataTransport t = fx.initiator();
        accepted(fx, t, before, "a", straggler, 1, false);
        // step 3: the old key is dropped
        DeploymentKeyRing after = ring(keys, fresh, old).withoutVerificationKey(old);
        fx.keyRing = after;
        DataTransport u = fx.initiator();
        refused(fx, u, "a", straggler.descriptor(), UnauthenticatedPeerException.Reason.UNKNOWN_KEY,
                "a descriptor signed with key '" + old + "', which its ring " + after + " dropped");
        accepted(fx, u, after, "b", rotated, 2, false);
        fx.assertQuiet(t, null, "after every transfer was reported");
        fx.assertQuiet(u, null, "after every transfer was reported");
    }
}
