package io.blockxfer.tck.directory;

import io.blockxfer.directory.Directory;
import io.blockxfer.directory.DirectoryEntry;
import io.blockxfer.directory.DirectoryEvent;
import io.blockxfer.directory.DirectoryListener;
import io.blockxfer.directory.DirectoryScope;
import io.blockxfer.directory.DirectorySnapshot;
import io.blockxfer.directory.DirectoryWatch;
import io.blockxfer.directory.MemberEntry;
import io.blockxfer.directory.Membership;
import io.blockxfer.directory.MembershipListener;
import io.blockxfer.directory.Publication;
import io.blockxfer.directory.PublicationListener;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.PeerDescriptor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.LongFunction;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * What the deliberately broken directories and memberships of the kit's own tests are made of:
 * a {@link Breakage} (each method the working behaviour unless a variant overrides it), the
 * in-memory clients it decorates ({@link BrokenDirectory}, {@link BrokenDeployment}), forwarding
 * listeners and publications to override, and the helpers that launder, re-sign and re-lease
 * entries. The variants themselves: {@link BrokenDirectories}, {@link BrokenMemberships},
 * {@link BrokenResolutions}.
 */
final class Breakages {

    private Breakages() {
    }

    /** The key ring of the broken runs, known to the decorators that re-sign entries. */
    static final DeploymentKeyRing RING = DeploymentKeyRing.of("tck", new byte[] {
        1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30,
        31, 32});

    /** One broken variant: its name, the rule that must catch it, and the defect. */
    record Variant(String name, DirectoryRules rule, Breakage breakage) {
        @Override
        public String toString() {
            return name + " [" + rule + "]";
        }
    }

    /**
     * A defect: each method is the working behaviour unless a variant overrides it. A publication
     * without a group goes to {@link #publish(BrokenDirectory, String, LongFunction, Duration,
     * PublicationListener)}, one with a group to the overload that takes it; a watch of every
     * member ({@link DirectoryScope#members()}, also {@code watch(listener)}) to
     * {@link #watch(BrokenDirectory, DirectoryListener)}, a watch of another scope to the overload
     * that takes it; every watch's listener goes through {@link #listener}.
     */
    interface Breakage {
        default Publication publish(BrokenDirectory d, String memberId, LongFunction<byte[]> value, Duration ttl,
                PublicationListener listener) {
            return d.delegate.publish(memberId, value, ttl, listener);
        }

        default Publication publish(BrokenDirectory d, String memberId, String group, LongFunction<byte[]> value,
                Duration ttl, PublicationListener listener) {
            return d.delegate.publish(memberId, group, value, ttl, listener);
        }

        default DirectoryWatch watch(BrokenDirectory d, DirectoryListener listener) {
            return d.delegate.watch(listener(d, listener));
        }

        default DirectoryWatch watch(BrokenDirectory d, DirectoryScope scope, DirectoryListener listener) {
            return d.delegate.watch(scope, listener(d, listener));
        }

        /** A read of a scope; the directory's default, over the decorated watches. */
        default CompletableFuture<DirectorySnapshot> read(BrokenDirectory d, DirectoryScope scope) {
            return d.defaultRead(scope);
        }

        /** A watch from a read; the directory's default, over the decorated watches. */
        default DirectoryWatch watchFrom(BrokenDirectory d, DirectoryScope scope, DirectorySnapshot from,
                DirectoryListener listener) {
            return d.defaultWatchFrom(scope, from, listener);
        }

        /** The listener a watch of the decorated directory is given. */
        default DirectoryListener listener(BrokenDirectory d, DirectoryListener listener) {
            return listener;
        }

        default void close(BrokenDirectory d) {
            d.delegate.close();
        }

        default MembershipListener decorate(MembershipListener listener) {
            return listener;
        }

        default Membership.Builder configure(Membership.Builder builder) {
            return builder;
        }

        /** The transport a rule's membership is given; the rule itself still uses the one underneath. */
        default DataTransport membershipTransport(DataTransport transport) {
            return transport;
        }
    }

    /** A client of the in-memory cluster with a defect. */
    static final class BrokenDirectory implements Directory {
        final Directory delegate;
        final BrokenDeployment deployment;
        final Breakage breakage;
        final Set<String> published = java.util.concurrent.ConcurrentHashMap.newKeySet();
        volatile boolean closed;

        BrokenDirectory(Directory delegate, BrokenDeployment deployment, Breakage breakage) {
            this.delegate = delegate;
            this.deployment = deployment;
            this.breakage = breakage;
        }

        @Override public String prefix() { return delegate.prefix(); }
        @Override public Duration operationTimeout() { return delegate.operationTimeout(); }

        @Override
        public Publication publish(String memberId, @Nullable String group, LongFunction<byte[]> value,
                Duration ttl, PublicationListener listener) {
            return group == null ? breakage.publish(this, memberId, value, ttl, listener)
                    : breakage.publish(this, memberId, group, value, ttl, listener);
        }

        @Override
        public DirectoryWatch watch(DirectoryScope scope, DirectoryListener listener) {
            return scope.equals(DirectoryScope.members()) ? breakage.watch(this, listener)
                    : breakage.watch(this, scope, listener);
        }

        @Override
        public CompletableFuture<DirectorySnapshot> read(DirectoryScope scope) {
            return breakage.read(this, scope);
        }

        @Override
        public DirectoryWatch watch(DirectoryScope scope, DirectorySnapshot from, DirectoryListener listener) {
            return breakage.watchFrom(this, scope, from, listener);
        }

        CompletableFuture<DirectorySnapshot> defaultRead(DirectoryScope scope) {
            return Directory.super.read(scope);
        }

        DirectoryWatch defaultWatchFrom(DirectoryScope scope, DirectorySnapshot from, DirectoryListener listener) {
            return Directory.super.watch(scope, from, listener);
        }

        @Override
        public void close() {
            closed = true;
            breakage.close(this);
        }

        @Override
        public String toString() {
            return delegate.toString();
        }
    }

    /** The in-memory deployment whose clients have the defect; its hooks act on the clients underneath. */
    static final class BrokenDeployment extends InMemoryDeployment {
        final Breakage breakage;

        BrokenDeployment(Breakage breakage) {
            this.breakage = breakage;
        }

        @Override
        public Directory connect() {
            return new BrokenDirectory(super.connect(), this, breakage);
        }

        private static Directory under(Directory client) {
            return client instanceof BrokenDirectory b ? b.delegate : client;
        }

        @Override public void cutOff(Directory client) { super.cutOff(under(client)); }
        @Override public void reconnect(Directory client) { super.reconnect(under(client)); }
        @Override public void crash(Directory client) { super.crash(under(client)); }
    }

    /** A listener that passes everything on; variants override what they break. */
    static class Forwarding implements DirectoryListener {
        final DirectoryListener to;

        Forwarding(DirectoryListener to) {
            this.to = to;
        }

        @Override public void snapshot(DirectorySnapshot snapshot) { to.snapshot(snapshot); }
        @Override public void changed(DirectoryEvent event) { to.changed(event); }
        @Override public void disconnected(String reason) { to.disconnected(reason); }
        @Override public void reconnected(long revision, boolean resync) { to.reconnected(revision, resync); }
    }

    /**
     * A publication that exists only in the decorator's mind (raw writes, or after close), or that
     * hides the real one {@code under} (restores go to it; without one they are refused).
     */
    record FakePublication(String memberId, String key, Duration ttl, long revision, Runnable onClose,
            @org.jspecify.annotations.Nullable Publication under) implements Publication {
        FakePublication(String memberId, String key, Duration ttl, long revision, Runnable onClose) {
            this(memberId, key, ttl, revision, onClose, null);
        }

        @Override public boolean isLost() { return false; }
        @Override public void close() { onClose.run(); }
        @Override public long lease() { return under == null ? 0 : under.lease(); }

        @Override
        public long restore() {
            if (under == null) {
                throw new UnsupportedOperationException("this broken directory cannot restore " + key);
            }
            return under.restore();
        }

        @Override
        public boolean deleteIfAt(long revision) {
            if (under == null) {
                throw new UnsupportedOperationException("this broken directory cannot delete " + key);
            }
            return under.deleteIfAt(revision);
        }
    }

    /**
     * Rewrites the values of puts and snapshot entries; {@code rewrite} returns the new key and
     * value, or null to keep them. A rewritten entry keeps its key's lease, or, when
     * {@code launder}, is reported on {@link #LAUNDERED_LEASE} (which {@link #signed} entries name).
     */
    static DirectoryListener rewriting(DirectoryListener to, boolean launder,
            BiFunction<String, byte[], Map.@org.jspecify.annotations.Nullable Entry<String, byte[]>> rewrite) {
        return new Forwarding(to) {
            @Override
            public void snapshot(DirectorySnapshot s) {
                List<DirectoryEntry> entries = new ArrayList<>();
                for (DirectoryEntry e : s.entries()) {
                    Map.Entry<String, byte[]> r = rewrite.apply(e.key(), e.value());
                    entries.add(r == null ? e : new DirectoryEntry(r.getKey(), r.getValue(), e.revision(),
                            launder ? LAUNDERED_LEASE : e.lease()));
                }
                to.snapshot(new DirectorySnapshot(s.revision(), entries));
            }

            @Override
            public void changed(DirectoryEvent e) {
                if (e.type() == DirectoryEvent.Type.PUT) {
                    Map.Entry<String, byte[]> r = rewrite.apply(e.key(), e.value());
                    if (r != null) {
                        to.changed(DirectoryEvent.put(r.getKey(), r.getValue(), e.revision(),
                                launder ? LAUNDERED_LEASE : e.lease(), e.isResync()));
                        return;
                    }
                }
                to.changed(e);
            }
        };
    }

    /** Reports every put and snapshot entry on the lease {@code lease} gives for it (key, value, reported lease). */
    static DirectoryListener releasing(DirectoryListener to, LeaseReport lease) {
        return new Forwarding(to) {
            @Override
            public void snapshot(DirectorySnapshot s) {
                List<DirectoryEntry> entries = new ArrayList<>();
                for (DirectoryEntry e : s.entries()) {
                    entries.add(new DirectoryEntry(e.key(), e.value(), e.revision(), lease.of(e.value(), e.lease())));
                }
                to.snapshot(new DirectorySnapshot(s.revision(), entries));
            }

            @Override
            public void changed(DirectoryEvent e) {
                to.changed(e.type() == DirectoryEvent.Type.PUT ? DirectoryEvent.put(e.key(), e.value(), e.revision(),
                        lease.of(e.value(), e.lease()), e.isResync()) : e);
            }
        };
    }

    /**
     * A watch of every key under the client's prefix that {@code keep} keeps, member keys and group
     * keys alike, as a directory that watched a prefix instead of its scope's range would deliver
     * it: through a client of the parent prefix (whose every-member range covers this prefix),
     * filtered to this prefix.
     */
    static DirectoryWatch prefixWatch(BrokenDirectory d, Predicate<String> keep, DirectoryListener l) {
        String prefix = d.prefix();
        String parent = prefix.substring(0, prefix.lastIndexOf('/', prefix.length() - 2) + 1);
        Directory above = d.deployment.cluster.connect(parent);
        Predicate<String> kept = key -> key.startsWith(prefix) && keep.test(key);
        DirectoryWatch w = above.watch(new Forwarding(l) {
            @Override
            public void snapshot(DirectorySnapshot s) {
                to.snapshot(new DirectorySnapshot(s.revision(), s.entries().stream().filter(e -> kept.test(e.key()))
                        .toList()));
            }

            @Override
            public void changed(DirectoryEvent e) {
                if (kept.test(e.key())) {
                    to.changed(e);
                }
            }
        });
        return new DirectoryWatch() {
            @Override
            public long revision() {
                return w.revision();
            }

            @Override
            public void close() {
                w.close();
                above.close();
            }
        };
    }

    /** The lease a broken directory reports for a key, given its value and the lease it really has. */
    interface LeaseReport {
        long of(byte[] value, long actual);
    }

    /** The lease the laundering decorators report their rewritten entries on, and sign them for. */
    static final long LAUNDERED_LEASE = 0x7a11L;

    /** The entry in {@code value}, read without a key ring, or null. */
    static MemberEntry decoded(byte[] value) {
        try {
            return MemberEntry.decode(value, null);
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** An entry of {@code memberId} at {@code epoch} of {@code d}, its descriptor and envelope signed with {@link #RING}. */
    static byte[] signed(String memberId, long epoch, PeerDescriptor d) {
        return MemberEntry.of(memberId, epoch, LAUNDERED_LEASE, d.signedWith(RING)).encode(RING);
    }

    /** The length of the envelope at the start of {@code value} (which may be padded). */
    static int envelopeLength(byte[] value) {
        ByteBuffer b = ByteBuffer.wrap(value).order(ByteOrder.LITTLE_ENDIAN);
        boolean isSigned = (b.getShort(6) & 1) != 0;
        int pos = 8;
        if (isSigned) {
            pos += 1 + Byte.toUnsignedInt(value[pos]);
        }
        pos += 1 + Byte.toUnsignedInt(value[pos]);
        pos += 8 + 8;
        int descriptor = b.getInt(pos);
        pos += 4 + descriptor + (isSigned ? DeploymentKeyRing.MAC_LENGTH : 0) + 4;
        return pos;
    }

    /** A publication that passes everything on; variants override what they break. */
    static class ForwardingPublication implements Publication {
        final Publication to;

        ForwardingPublication(Publication to) {
            this.to = to;
        }

        @Override public String memberId() { return to.memberId(); }
        @Override public String key() { return to.key(); }
        @Override public Duration ttl() { return to.ttl(); }
        @Override public long revision() { return to.revision(); }
        @Override public long lease() { return to.lease(); }
        @Override public long restore() { return to.restore(); }
        @Override public boolean deleteIfAt(long revision) { return to.deleteIfAt(revision); }
        @Override public boolean isLost() { return to.isLost(); }
        @Override public void close() { to.close(); }
    }

    static void sleep(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
