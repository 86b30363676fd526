package io.blockxfer.tck;

import io.blockxfer.loopback.LoopbackProvider;
import io.blockxfer.transport.CancelMode;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.InsufficientMemoryException;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.UnauthenticatedPeerException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Broken loopback backends that break a promise of the guides (docs/) beyond the contract every rule
 * checked before: key rotation (K) and deadlines (T). Each is a provider that opens working
 * loopback transports and decorates them with one defect; the providers are public classes with
 * one public no-argument constructor, so the descriptor rules' child JVM can make them again.
 */
final class BrokenPromises {

    private BrokenPromises() {
    }

    /** A provider of loopback transports passed through {@link #decorate}. */
    abstract static class LoopbackDecorating extends ForwardingProvider<LoopbackProvider> {
        LoopbackDecorating() {
            super(new LoopbackProvider());
        }

        @Override
        public DataTransport open(TransportConfig config) {
            return decorate(config, delegate);
        }

        abstract DataTransport decorate(TransportConfig config, LoopbackProvider real);
    }

    /** A transport whose {@code addPeer} and {@code addPeerAsync} first pass the descriptor through {@link #admit}. */
    abstract static class Admitting extends ForwardingTransport {
        Admitting(DataTransport delegate) {
            super(delegate);
        }

        /** The descriptor to hand to the real transport. */
        abstract PeerDescriptor admit(String peerId, PeerDescriptor d);

        @Override
        public void addPeer(String peerId, PeerDescriptor peer) {
            delegate.addPeer(peerId, peerId == null || peer == null ? peer : admit(peerId, peer));
        }

        @Override
        public CompletableFuture<Void> addPeerAsync(String peerId, PeerDescriptor peer) {
            return delegate.addPeerAsync(peerId, peerId == null || peer == null ? peer : admit(peerId, peer));
        }
    }

    // ------------------------------------------------------------------ G

    /**
     * Refuses a region the host cannot hold as loopback does, but with an {@link IllegalStateException}
     * of its own ("out of memory") instead of the {@link InsufficientMemoryException} the contract
     * names, as a backend that reports whatever its allocator threw.
     */
    public static final class VagueOutOfMemoryError extends LoopbackDecorating {
        /** For the harness. */
        public VagueOutOfMemoryError() {
        }

        @Override
        DataTransport decorate(TransportConfig config, LoopbackProvider real) {
            try {
                return real.open(config);
            } catch (InsufficientMemoryException e) {
                throw new IllegalStateException("out of memory");
            }
        }
    }

    // ------------------------------------------------------------------ K

    /**
     * Checks every descriptor's MAC with its ring's signing key, whatever key the descriptor names:
     * every descriptor signed with another key of the ring is refused, so a deployment breaks the
     * day it rotates. (Needs the key bytes, which only a ring the kit made gives; with any other
     * ring it verifies correctly.)
     */
    public static final class VerifiesWithTheSigningKey extends LoopbackDecorating {
        /** For the child JVM of the descriptor rules. */
        public VerifiesWithTheSigningKey() {
        }

        @Override
        DataTransport decorate(TransportConfig config, LoopbackProvider real) {
            Optional<DeploymentKeyRing> ring = config.keyRing();
            if (ring.isEmpty()) {
                return real.open(config);
            }
            byte[] signingKey;
            try {
                String first = TckKeys.encode(ring.get()).split(",", -1)[0];
                signingKey = Base64.getDecoder().decode(first.substring(first.indexOf('=') + 1));
            } catch (IllegalArgumentException notMadeByTheKit) {
                return real.open(config);
            }
            boolean acceptUnsigned = config.acceptUnsignedPeers();
            DeploymentKeyRing own = ring.get();
            // the real transport signs its own descriptor, and takes what this one let through, signed
            // again with its own ring (so that it keeps checking everything else, notifications included)
            return new Admitting(real.open(config)) {
                @Override
                PeerDescriptor admit(String peerId, PeerDescriptor d) {
                    if (!d.isSigned()) {
                        if (acceptUnsigned) {
                            return d;
                        }
                        throw new UnauthenticatedPeerException(UnauthenticatedPeerException.Reason.UNSIGNED,
                                "peer '" + peerId + "' rejected: its descriptor is unsigned");
                    }
                    // the defect: the MAC is checked with the signing key, not with the key it names
                    DeploymentKeyRing.of(d.keyId().orElseThrow(), signingKey).verify(d);
                    return d.unsigned().signedWith(own);
                }
            };
        }
    }

    /**
     * Keeps, JVM-wide, every key of every ring a transport was opened with, and accepts a
     * descriptor signed with a key its own ring dropped when an earlier ring held that key.
     */
    public static final class RemembersDroppedKeys extends LoopbackDecorating {
        private static final Map<String, DeploymentKeyRing> SEEN = new ConcurrentHashMap<>();

        /** For the child JVM of the descriptor rules. */
        public RemembersDroppedKeys() {
        }

        @Override
        DataTransport decorate(TransportConfig config, LoopbackProvider real) {
            Optional<DeploymentKeyRing> maybeRing = config.keyRing();
            if (maybeRing.isEmpty()) {
                return real.open(config);
            }
            DeploymentKeyRing ring = maybeRing.get();
            ring.keyIds().forEach(id -> SEEN.put(id, ring));
            return new Admitting(real.open(config)) {
                @Override
                PeerDescriptor admit(String peerId, PeerDescriptor d) {
                    String id = d.keyId().orElse(null);
                    DeploymentKeyRing earlier = id == null ? null : SEEN.get(id);
                    if (id == null || ring.contains(id) || earlier == null) {
                        return d;
                    }
                    // the defect: a key that another transport's ring held still vouches for a peer
                    earlier.verify(d);
                    return d.unsigned().signedWith(ring);
                }
            };
        }
    }

    // ------------------------------------------------------------------ T

    /**
     * Measures the deadline of every transfer of a peer from the first submit after the peer was
     * last idle (one timer per peer, armed when its first transfer starts): under a steady stream
     * of transfers, a transfer submitted later is failed before its own deadline.
     */
    public static final class DeadlineFromTheFirstBusySubmit extends LoopbackDecorating {
        /** For the child JVM of the descriptor rules. */
        public DeadlineFromTheFirstBusySubmit() {
        }

        @Override
        DataTransport decorate(TransportConfig config, LoopbackProvider real) {
            long deadline = config.transferTimeout().toNanos();
            return new RewritingTransport(real.open(config)) {
                final Map<String, Set<Long>> pending = new HashMap<>();
                final Map<String, Long> busySince = new HashMap<>();

                @Override
                synchronized long submitted(String peer, long id) {
                    super.submitted(peer, id);
                    if (id >= 0) {
                        Set<Long> ids = pending.computeIfAbsent(peer, p -> new HashSet<>());
                        if (ids.isEmpty()) {
                            busySince.put(peer, System.nanoTime());
                        }
                        ids.add(id);
                    }
                    return id;
                }

                @Override
                synchronized List<Report> rewrite(String peer, List<Report> reports) {
                    for (Report x : reports) {
                        String of = peerOf.get(x.id());
                        if (of != null) {
                            pending.getOrDefault(of, new HashSet<>()).remove(x.id());
                        }
                    }
                    List<Report> out = new ArrayList<>(reports);
                    long now = System.nanoTime();
                    for (Map.Entry<String, Set<Long>> e : pending.entrySet()) {
                        Set<Long> ids = e.getValue();
                        Long since = busySince.get(e.getKey());
                        if ((peer != null && !peer.equals(e.getKey())) || ids.isEmpty() || since == null
                                || now - since <= deadline) {
                            continue;
                        }
                        // the defect: the peer's timer, armed by its first transfer, fails them all
                        long[] overdue = ids.stream().mapToLong(Long::longValue).toArray();
                        delegate.cancel(overdue, CancelMode.IMMEDIATE);
                        for (long id : overdue) {
                            out.add(new Report(id, false));
                        }
                        ids.clear();
                    }
                    return out;
                }

                @Override
                public long[] cancel(long[] ids, CancelMode mode) {
                    long[] still = delegate.cancel(ids, mode);
                    Set<Long> kept = new HashSet<>();
                    for (long id : still) {
                        kept.add(id);
                    }
                    synchronized (this) {
                        for (long id : ids) {
                            String of = peerOf.get(id);
                            if (of != null && !kept.contains(id)) {
                                pending.getOrDefault(of, new HashSet<>()).remove(id);
                            }
                        }
                    }
                    return still;
                }
            };
        }
    }
}
