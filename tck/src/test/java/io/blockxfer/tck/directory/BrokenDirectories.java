package io.blockxfer.tck.directory;

import static io.blockxfer.tck.directory.DirectoryRules.B1;
import static io.blockxfer.tck.directory.DirectoryRules.B10;
import static io.blockxfer.tck.directory.DirectoryRules.B11;
import static io.blockxfer.tck.directory.DirectoryRules.B12;
import static io.blockxfer.tck.directory.DirectoryRules.B13;
import static io.blockxfer.tck.directory.DirectoryRules.B14;
import static io.blockxfer.tck.directory.DirectoryRules.B15;
import static io.blockxfer.tck.directory.DirectoryRules.B16;
import static io.blockxfer.tck.directory.DirectoryRules.B17;
import static io.blockxfer.tck.directory.DirectoryRules.B2;
import static io.blockxfer.tck.directory.DirectoryRules.B21;
import static io.blockxfer.tck.directory.DirectoryRules.B3;
import static io.blockxfer.tck.directory.DirectoryRules.B4;
import static io.blockxfer.tck.directory.DirectoryRules.B5;
import static io.blockxfer.tck.directory.DirectoryRules.B6;
import static io.blockxfer.tck.directory.DirectoryRules.B7;
import static io.blockxfer.tck.directory.DirectoryRules.B8;
import static io.blockxfer.tck.directory.DirectoryRules.B9;
import static io.blockxfer.tck.directory.DirectoryRules.D1;
import static io.blockxfer.tck.directory.DirectoryRules.D10;
import static io.blockxfer.tck.directory.DirectoryRules.D11;
import static io.blockxfer.tck.directory.DirectoryRules.D12;
import static io.blockxfer.tck.directory.DirectoryRules.D13;
import static io.blockxfer.tck.directory.DirectoryRules.D14;
import static io.blockxfer.tck.directory.DirectoryRules.D15;
import static io.blockxfer.tck.directory.DirectoryRules.D16;
import static io.blockxfer.tck.directory.DirectoryRules.D17;
import static io.blockxfer.tck.directory.DirectoryRules.D18;
import static io.blockxfer.tck.directory.DirectoryRules.D19;
import static io.blockxfer.tck.directory.DirectoryRules.D20;
import static io.blockxfer.tck.directory.DirectoryRules.D2;
import static io.blockxfer.tck.directory.DirectoryRules.D3;
import static io.blockxfer.tck.directory.DirectoryRules.D4;
import static io.blockxfer.tck.directory.DirectoryRules.D5;
import static io.blockxfer.tck.directory.DirectoryRules.D6;
import static io.blockxfer.tck.directory.DirectoryRules.D7;
import static io.blockxfer.tck.directory.DirectoryRules.D8;
import static io.blockxfer.tck.directory.DirectoryRules.D9;

import io.blockxfer.directory.Directory;
import io.blockxfer.directory.DirectoryEntry;
import io.blockxfer.directory.DirectoryEvent;
import io.blockxfer.directory.DirectoryLimits;
import io.blockxfer.directory.DirectoryListener;
import io.blockxfer.directory.DirectoryScope;
import io.blockxfer.directory.DirectorySnapshot;
import io.blockxfer.directory.DirectoryUnavailableException;
import io.blockxfer.directory.DirectoryWatch;
import io.blockxfer.directory.MemberEntry;
import io.blockxfer.directory.Membership;
import io.blockxfer.directory.MembershipListener;
import io.blockxfer.directory.Publication;
import io.blockxfer.directory.PublicationListener;
import io.blockxfer.directory.Refusal;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.PeerDescriptor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.LongFunction;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * The deliberately broken directories and memberships of the kit's own tests, each with the rule
 * that must catch it: decorators of the in-memory directory's clients (what they deliver, publish
 * and throw), and decorations of a working membership's inputs (the entries it is shown, its
 * listener, its settings), which make it behave as a membership with that defect would.
 */
final class BrokenDirectories {

    private BrokenDirectories() {
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

    static List<Variant> all() {
        List<Variant> v = new ArrayList<>();
        Breakage emptySnapshots = new Breakage() {
            @Override
            public DirectoryListener listener(BrokenDirectory d, DirectoryListener l) {
                return new Forwarding(l) {
                    @Override
                    public void snapshot(DirectorySnapshot s) {
                        to.snapshot(new DirectorySnapshot(s.revision(), List.of()));
                    }
                };
            }
        };
        v.add(new Variant("empty-snapshots", D1, emptySnapshots));
        v.add(new Variant("empty-snapshots", B1, emptySnapshots));
        v.add(new Variant("shifts-revisions", D1, new Breakage() {
            @Override
            public DirectoryListener listener(BrokenDirectory d, DirectoryListener l) {
                return new Forwarding(l) {
                    @Override
                    public void changed(DirectoryEvent e) {
                        to.changed(e.type() == DirectoryEvent.Type.PUT
                                ? DirectoryEvent.put(e.key(), e.value(), e.revision() + 1, e.isResync())
                                : DirectoryEvent.delete(e.key(), e.revision() + 1, e.isResync()));
                    }
                };
            }
        }));
        v.add(new Variant("reports-no-leases", D1, new Breakage() {
            @Override
            public DirectoryListener listener(BrokenDirectory d, DirectoryListener l) {
                return releasing(l, (value, actual) -> 0);
            }
        }));
        v.add(new Variant("closing-an-old-publication-deletes-the-new-entry", D2, new Breakage() {
            @Override
            public Publication publish(BrokenDirectory d, String id, LongFunction<byte[]> value, Duration ttl,
                    PublicationListener l) {
                Publication p = d.delegate.publish(id, value, ttl, l);
                return new FakePublication(id, p.key(), ttl, p.revision(), () -> {
                    p.close();
                    d.deployment.deleteRaw(p.key());
                });
            }
        }));
        Breakage noGoodbye = new Breakage() {
            @Override
            public Publication publish(BrokenDirectory d, String id, LongFunction<byte[]> value, Duration ttl,
                    PublicationListener l) {
                Publication p = d.delegate.publish(id, value, ttl, l);
                return new FakePublication(id, p.key(), ttl, p.revision(), () -> { });
            }

            @Override
            public void close(BrokenDirectory d) {
                d.deployment.cluster.crash(d.delegate);
            }
        };
        v.add(new Variant("close-without-goodbye", D3, noGoodbye));
        v.add(new Variant("close-without-goodbye", B12, noGoodbye));
        v.add(new Variant("publishes-without-a-lease", D4, new Breakage() {
            @Override
            public Publication publish(BrokenDirectory d, String id, LongFunction<byte[]> value, Duration ttl,
                    PublicationListener l) {
                String key = d.prefix() + id;
                d.deployment.putRaw(key, value.apply(0));
                return new FakePublication(id, key, ttl, d.deployment.cluster.revision(),
                        () -> d.deployment.deleteRaw(key));
            }
        }));
        v.add(new Variant("expires-at-half-the-ttl", D4, new Breakage() {
            @Override
            public Publication publish(BrokenDirectory d, String id, LongFunction<byte[]> value, Duration ttl,
                    PublicationListener l) {
                Duration half = ttl.dividedBy(2).compareTo(DirectoryLimits.MIN_TTL) < 0 ? DirectoryLimits.MIN_TTL
                        : Duration.ofSeconds(ttl.dividedBy(2).toSeconds());
                return d.delegate.publish(id, value, half, l);
            }
        }));
        v.add(new Variant("delivers-out-of-order", D5, new Breakage() {
            @Override
            public DirectoryListener listener(BrokenDirectory d, DirectoryListener l) {
                return new Forwarding(l) {
                    DirectoryEvent held;

                    @Override
                    public void changed(DirectoryEvent e) {
                        if (held == null) {
                            held = e;
                            return;
                        }
                        to.changed(e);
                        to.changed(held);
                        held = null;
                    }
                };
            }
        }));
        v.add(new Variant("delivers-twice", D5, new Breakage() {
            @Override
            public DirectoryListener listener(BrokenDirectory d, DirectoryListener l) {
                return new Forwarding(l) {
                    int n;

                    @Override
                    public void changed(DirectoryEvent e) {
                        to.changed(e);
                        if (++n % 3 == 0) {
                            to.changed(e);
                        }
                    }
                };
            }
        }));
        v.add(new Variant("no-keep-alive", D6, new Breakage() {
            @Override
            public Publication publish(BrokenDirectory d, String id, LongFunction<byte[]> value, Duration ttl,
                    PublicationListener l) {
                Directory side = d.deployment.cluster.connect(d.prefix());
                Publication p = side.publish(id, value, ttl, l);
                d.deployment.cluster.crash(side);
                return p;
            }
        }));
        Breakage forgets = new Breakage() {
            @Override
            public DirectoryListener listener(BrokenDirectory d, DirectoryListener l) {
                return new Forwarding(l) {
                    int drop;

                    @Override
                    public void reconnected(long revision, boolean resync) {
                        drop = 2;
                        to.reconnected(revision, resync);
                    }

                    @Override
                    public void changed(DirectoryEvent e) {
                        if (drop > 0) {
                            drop--;
                            return;
                        }
                        to.changed(e);
                    }
                };
            }
        };
        v.add(new Variant("forgets-events-of-an-outage", D7, forgets));
        v.add(new Variant("forgets-events-of-an-outage", B10, forgets));
        v.add(new Variant("replays-after-reconnect", D7, new Breakage() {
            @Override
            public DirectoryListener listener(BrokenDirectory d, DirectoryListener l) {
                return new Forwarding(l) {
                    boolean again;

                    @Override
                    public void reconnected(long revision, boolean resync) {
                        again = true;
                        to.reconnected(revision, resync);
                    }

                    @Override
                    public void changed(DirectoryEvent e) {
                        to.changed(e);
                        if (again) {
                            again = false;
                            to.changed(e);
                        }
                    }
                };
            }
        }));
        v.add(new Variant("resync-without-deletes", D8, new Breakage() {
            @Override
            public DirectoryListener listener(BrokenDirectory d, DirectoryListener l) {
                return new Forwarding(l) {
                    @Override
                    public void changed(DirectoryEvent e) {
                        if (!(e.isResync() && e.type() == DirectoryEvent.Type.DELETE)) {
                            to.changed(e);
                        }
                    }
                };
            }
        }));
        Breakage hidesLoss = new Breakage() {
            @Override
            public Publication publish(BrokenDirectory d, String id, LongFunction<byte[]> value, Duration ttl,
                    PublicationListener l) {
                Publication p = d.delegate.publish(id, value, ttl, PublicationListener.NONE);
                d.published.add(p.key());
                return new FakePublication(id, p.key(), ttl, p.revision(), p::close, p);
            }

            /** Its own entry's delete is hidden from its own watches too: nothing tells the publisher. */
            @Override
            public DirectoryListener listener(BrokenDirectory d, DirectoryListener l) {
                return new Forwarding(l) {
                    @Override
                    public void changed(DirectoryEvent e) {
                        if (!(e.type() == DirectoryEvent.Type.DELETE && d.published.contains(e.key()))) {
                            to.changed(e);
                        }
                    }
                };
            }
        };
        v.add(new Variant("hides-lease-loss", D9, hidesLoss));
        v.add(new Variant("hides-lease-loss", B9, hidesLoss));
        v.add(new Variant("accepts-a-one-second-ttl", D10, new Breakage() {
            @Override
            public Publication publish(BrokenDirectory d, String id, LongFunction<byte[]> value, Duration ttl,
                    PublicationListener l) {
                return d.delegate.publish(id, value, ttl.equals(Duration.ofSeconds(1)) ? DirectoryLimits.MIN_TTL : ttl,
                        l);
            }
        }));
        v.add(new Variant("answers-after-close", D11, new Breakage() {
            @Override
            public Publication publish(BrokenDirectory d, String id, LongFunction<byte[]> value, Duration ttl,
                    PublicationListener l) {
                if (d.closed) {
                    return new FakePublication(id, d.prefix() + id, ttl, 1, () -> { });
                }
                return d.delegate.publish(id, value, ttl, l);
            }
        }));
        v.add(new Variant("calls-listeners-on-the-caller", D12, new Breakage() {
            @Override
            public DirectoryWatch watch(BrokenDirectory d, DirectoryListener l) {
                CompletableFuture<DirectorySnapshot> first = new CompletableFuture<>();
                List<DirectoryEvent> early = new ArrayList<>();
                boolean[] handed = new boolean[1];
                DirectoryWatch w = d.delegate.watch(new Forwarding(l) {
                    @Override
                    public void snapshot(DirectorySnapshot s) {
                        first.complete(s);
                    }

                    @Override
                    public void changed(DirectoryEvent e) {
                        synchronized (handed) {
                            if (!handed[0]) {
                                early.add(e);
                                return;
                            }
                        }
                        to.changed(e);
                    }
                });
                try {
                    l.snapshot(first.get(5, TimeUnit.SECONDS)); // on the caller's thread
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                synchronized (handed) {
                    early.forEach(l::changed);
                    handed[0] = true;
                }
                return w;
            }
        }));
        v.add(new Variant("stops-after-a-listener-throws", D12, new Breakage() {
            @Override
            public DirectoryListener listener(BrokenDirectory d, DirectoryListener l) {
                return new Forwarding(l) {
                    boolean stopped;

                    @Override
                    public void snapshot(DirectorySnapshot s) {
                        guard(() -> to.snapshot(s));
                    }

                    @Override
                    public void changed(DirectoryEvent e) {
                        guard(() -> to.changed(e));
                    }

                    private void guard(Runnable call) {
                        if (stopped) {
                            return;
                        }
                        try {
                            call.run();
                        } catch (RuntimeException e) {
                            stopped = true;
                            throw e;
                        }
                    }
                };
            }
        }));
        v.add(new Variant("hangs-when-unreachable", D13, new Breakage() {
            @Override
            public Publication publish(BrokenDirectory d, String id, LongFunction<byte[]> value, Duration ttl,
                    PublicationListener l) {
                try {
                    return d.delegate.publish(id, value, ttl, l);
                } catch (DirectoryUnavailableException e) {
                    sleep(d.operationTimeout().plusSeconds(3));
                    throw e;
                }
            }

            @Override
            public DirectoryWatch watch(BrokenDirectory d, DirectoryListener l) {
                try {
                    return d.delegate.watch(l);
                } catch (DirectoryUnavailableException e) {
                    sleep(d.operationTimeout().plusSeconds(3));
                    throw e;
                }
            }
        }));
        v.add(new Variant("vague-unreachable-error", D13, new Breakage() {
            @Override
            public Publication publish(BrokenDirectory d, String id, LongFunction<byte[]> value, Duration ttl,
                    PublicationListener l) {
                try {
                    return d.delegate.publish(id, value, ttl, l);
                } catch (DirectoryUnavailableException e) {
                    throw new DirectoryUnavailableException("unavailable");
                }
            }

            @Override
            public DirectoryWatch watch(BrokenDirectory d, DirectoryListener l) {
                try {
                    return d.delegate.watch(l);
                } catch (DirectoryUnavailableException e) {
                    throw new DirectoryUnavailableException("unavailable");
                }
            }
        }));
        v.add(new Variant("keeps-the-first-entry", B2, new Breakage() {
            @Override
            public DirectoryListener listener(BrokenDirectory d, DirectoryListener l) {
                return new Forwarding(l) {
                    final Set<String> seen = new HashSet<>();

                    @Override
                    public void snapshot(DirectorySnapshot s) {
                        s.entries().forEach(e -> seen.add(e.key()));
                        to.snapshot(s);
                    }

                    @Override
                    public void changed(DirectoryEvent e) {
                        if (e.type() == DirectoryEvent.Type.PUT && !seen.add(e.key())) {
                            return;
                        }
                        to.changed(e);
                    }
                };
            }
        }));
        Breakage ignoresDeletes = new Breakage() {
            @Override
            public DirectoryListener listener(BrokenDirectory d, DirectoryListener l) {
                return new Forwarding(l) {
                    @Override
                    public void changed(DirectoryEvent e) {
                        if (e.type() == DirectoryEvent.Type.PUT) {
                            to.changed(e);
                        }
                    }
                };
            }
        };
        v.add(new Variant("ignores-deletes", B3, ignoresDeletes));
        v.add(new Variant("ignores-deletes", B4, ignoresDeletes));
        v.add(new Variant("launders-signatures", B5, new Breakage() {
            @Override
            public DirectoryListener listener(BrokenDirectory d, DirectoryListener l) {
                return rewriting(l, true, (key, value) -> {
                    MemberEntry e = decoded(value);
                    return e == null ? null : Map.entry(key, signed(e.memberId(), e.epoch(), e.peerDescriptor()));
                });
            }
        }));
        v.add(new Variant("reports-no-refusals", B5, new Breakage() {
            @Override
            public MembershipListener decorate(MembershipListener l) {
                return new MembershipListener() {
                    @Override public void published(String m, long e) { l.published(m, e); }
                    @Override public void memberAdded(String m, long e) { l.memberAdded(m, e); }
                    @Override public void memberUpdated(String m, long e) { l.memberUpdated(m, e); }
                    @Override public void memberRemoved(String m, long e) { l.memberRemoved(m, e); }
                    @Override public void refused(Refusal r) { }
                };
            }
        }));
        v.add(new Variant("accepts-any-key", B6, new Breakage() {
            @Override
            public DirectoryListener listener(BrokenDirectory d, DirectoryListener l) {
                return rewriting(l, false, (key, value) -> {
                    MemberEntry e = decoded(value);
                    return e == null ? null : Map.entry(d.prefix() + e.memberId(), value);
                });
            }
        }));
        v.add(new Variant("parses-oversized-values", B6, new Breakage() {
            @Override
            public DirectoryListener listener(BrokenDirectory d, DirectoryListener l) {
                return rewriting(l, false, (key, value) -> value.length > DirectoryLimits.MAX_VALUE_BYTES
                        ? Map.entry(key, Arrays.copyOf(value, envelopeLength(value))) : null);
            }
        }));
        v.add(new Variant("dies-on-garbage", B6, new Breakage() {
            @Override
            public DirectoryListener listener(BrokenDirectory d, DirectoryListener l) {
                return new Forwarding(l) {
                    boolean dead;

                    @Override
                    public void changed(DirectoryEvent e) {
                        if (dead) {
                            return;
                        }
                        if (e.type() == DirectoryEvent.Type.PUT && e.valueLength() <= DirectoryLimits.MAX_VALUE_BYTES
                                && decoded(e.value()) == null) {
                            dead = true;
                        }
                        to.changed(e);
                    }
                };
            }
        }));
        v.add(new Variant("launders-epochs", B7, new Breakage() {
            @Override
            public DirectoryListener listener(BrokenDirectory d, DirectoryListener l) {
                Map<String, Long> highest = new HashMap<>();
                return rewriting(l, true, (key, value) -> {
                    MemberEntry e = decoded(value);
                    if (e == null) {
                        return null;
                    }
                    long top = highest.getOrDefault(key, 0L);
                    if (e.epoch() > top) {
                        highest.put(key, e.epoch());
                        return null;
                    }
                    highest.put(key, top + 1);
                    return Map.entry(key, signed(e.memberId(), top + 1, e.peerDescriptor()));
                });
            }
        }));
        v.add(new Variant("launders-descriptors", B8, new Breakage() {
            @Override
            public DirectoryListener listener(BrokenDirectory d, DirectoryListener l) {
                return rewriting(l, true, (key, value) -> {
                    MemberEntry e = decoded(value);
                    if (e == null) {
                        return null;
                    }
                    PeerDescriptor p = e.peerDescriptor();
                    PeerDescriptor same = new PeerDescriptor("loopback", "", p.baseAddress(), p.numBlocks(),
                            DirectoryFixture.BLOCK_LENGTH, p.metadata());
                    return Map.entry(key, signed(e.memberId(), e.epoch(), same));
                });
            }
        }));
        v.add(new Variant("member-scope-matches-a-prefix", D14, new Breakage() {
            /** Watches every key that starts with the member's key, as an etcd watch WithPrefix of it would. */
            @Override
            public DirectoryWatch watch(BrokenDirectory d, DirectoryScope scope, DirectoryListener l) {
                String key = scope.start(d.prefix());
                return scope.isSingleKey() ? prefixWatch(d, k -> k.startsWith(key), l)
                        : d.delegate.watch(scope, l);
            }
        }));
        v.add(new Variant("group-scope-without-its-slash", D15, new Breakage() {
            /** Watches the keys that start with "~group/" and the group's name, without the '/' after it. */
            @Override
            public DirectoryWatch watch(BrokenDirectory d, DirectoryScope scope, DirectoryListener l) {
                String start = scope.start(d.prefix());
                return scope.isSingleKey() ? d.delegate.watch(scope, l)
                        : prefixWatch(d, k -> k.startsWith(start.substring(0, start.length() - 1)), l);
            }
        }));
        v.add(new Variant("writes-the-group-key-apart", D16, new Breakage() {
            /** Publishes the member's key, then writes the group key in a write of its own, without the lease. */
            @Override
            public Publication publish(BrokenDirectory d, String id, String group, LongFunction<byte[]> value,
                    Duration ttl, PublicationListener l) {
                byte[][] made = new byte[1][];
                Publication p = d.delegate.publish(id, lease -> made[0] = value.apply(lease), ttl, l);
                String groupKey = DirectoryScope.groupKey(d.prefix(), group, id);
                d.deployment.putRaw(groupKey, made[0]);
                return new FakePublication(id, p.key(), ttl, p.revision(), () -> {
                    p.close();
                    d.deployment.deleteRaw(groupKey);
                }, p);
            }
        }));
        v.add(new Variant("restore-forgets-the-group-key", D16, new Breakage() {
            /** Restores the member's key alone: the group key, written back with it here, is gone again. */
            @Override
            public Publication publish(BrokenDirectory d, String id, String group, LongFunction<byte[]> value,
                    Duration ttl, PublicationListener l) {
                Publication p = d.delegate.publish(id, group, value, ttl, l);
                String groupKey = DirectoryScope.groupKey(d.prefix(), group, id);
                return new FakePublication(id, p.key(), ttl, p.revision(), p::close, new Publication() {
                    @Override public String memberId() { return p.memberId(); }
                    @Override public String key() { return p.key(); }
                    @Override public Duration ttl() { return p.ttl(); }
                    @Override public long revision() { return p.revision(); }
                    @Override public long lease() { return p.lease(); }
                    @Override public boolean isLost() { return p.isLost(); }
                    @Override public void close() { p.close(); }
                    @Override public boolean deleteIfAt(long revision) { return p.deleteIfAt(revision); }

                    @Override
                    public long restore() {
                        long at = p.restore();
                        d.deployment.deleteRaw(groupKey);
                        return at;
                    }
                });
            }
        }));
        v.add(new Variant("members-watch-sees-group-keys", D17, new Breakage() {
            /** Watches every key under the prefix, the group keys included. */
            @Override
            public DirectoryWatch watch(BrokenDirectory d, DirectoryListener l) {
                return prefixWatch(d, k -> true, l);
            }
        }));
        scopeVariants(v);
        v.add(new Variant("drops-peers-when-disconnected", B10, new Breakage() {
            @Override
            public DirectoryListener listener(BrokenDirectory d, DirectoryListener l) {
                return new Forwarding(l) {
                    final Set<String> present = new LinkedHashSet<>();
                    long revision = 1;

                    @Override
                    public void snapshot(DirectorySnapshot s) {
                        s.entries().forEach(e -> present.add(e.key()));
                        revision = Math.max(1, s.revision());
                        to.snapshot(s);
                    }

                    @Override
                    public void changed(DirectoryEvent e) {
                        if (e.type() == DirectoryEvent.Type.PUT) {
                            present.add(e.key());
                        } else {
                            present.remove(e.key());
                        }
                        revision = e.revision();
                        to.changed(e);
                    }

                    @Override
                    public void disconnected(String reason) {
                        to.disconnected(reason);
                        for (String key : List.copyOf(present)) {
                            to.changed(DirectoryEvent.delete(key, revision, false));
                        }
                    }
                };
            }
        }));
        v.add(new Variant("stops-after-a-listener-throws", B11, new Breakage() {
            @Override
            public MembershipListener decorate(MembershipListener l) {
                boolean[] stopped = new boolean[1];
                return new MembershipListener() {
                    private void guard(Runnable call) {
                        if (stopped[0]) {
                            return;
                        }
                        try {
                            call.run();
                        } catch (RuntimeException e) {
                            stopped[0] = true;
                            throw e;
                        }
                    }

                    @Override public void published(String m, long e) { guard(() -> l.published(m, e)); }
                    @Override public void memberAdded(String m, long e) { guard(() -> l.memberAdded(m, e)); }
                    @Override public void memberUpdated(String m, long e) { guard(() -> l.memberUpdated(m, e)); }
                    @Override public void memberRemoved(String m, long e) { guard(() -> l.memberRemoved(m, e)); }
                    @Override public void refused(Refusal r) { guard(() -> l.refused(r)); }
                };
            }
        }));
        v.add(new Variant("flap-interval-ignored", B13, new Breakage() {
            @Override
            public Membership.Builder configure(Membership.Builder builder) {
                return builder.flapInterval(Duration.ZERO);
            }
        }));
        v.add(new Variant("hides-re-registrations", B14, new Breakage() {
            @Override
            public MembershipListener decorate(MembershipListener l) {
                return new MembershipListener() {
                    @Override public void published(String m, long e) { l.published(m, e); }
                    @Override public void leaseLost(String m, long e, String r) { l.leaseLost(m, e, r); }
                    @Override public void memberAdded(String m, long e) { l.memberAdded(m, e); }
                    @Override public void memberUpdated(String m, long e) { l.memberUpdated(m, e); }
                    @Override public void memberRemoved(String m, long e) { l.memberRemoved(m, e); }
                    @Override public void registrationFailed(String m, long e, Throwable c) {
                        l.registrationFailed(m, e, c);
                    }
                    @Override public void refused(Refusal r) { l.refused(r); }
                    // memberReRegistered: not passed on
                };
            }
        }));
        v.add(new Variant("reports-signed-leases", B15, new Breakage() {
            /** Reports the lease an entry names, as a directory that does not read its keys' leases might guess. */
            @Override
            public DirectoryListener listener(BrokenDirectory d, DirectoryListener l) {
                return releasing(l, (value, actual) -> {
                    MemberEntry e = decoded(value);
                    return e == null || e.lease() == 0 ? actual : e.lease();
                });
            }
        }));
        v.add(new Variant("cannot-restore", B16, new Breakage() {
            @Override
            public Publication publish(BrokenDirectory d, String id, LongFunction<byte[]> value, Duration ttl,
                    PublicationListener l) {
                Publication p = d.delegate.publish(id, value, ttl, l);
                return new FakePublication(id, p.key(), ttl, p.revision(), p::close);
            }
        }));
        BrokenResolutions.variants(v);
        return v;
    }

    /** The variants of the reads, watches from a read and conditional deletes (D18-D20). */
    private static void scopeVariants(List<Variant> v) {
        v.add(new Variant("reads-a-stale-snapshot", D18, new Breakage() {
            /** Per scope: the first read, served to every later one. */
            private final Map<DirectoryScope, CompletableFuture<DirectorySnapshot>> cache =
                    new java.util.concurrent.ConcurrentHashMap<>();

            @Override
            public CompletableFuture<DirectorySnapshot> read(BrokenDirectory d, DirectoryScope scope) {
                if (d.closed) {
                    return d.defaultRead(scope);
                }
                return cache.computeIfAbsent(scope, d::defaultRead);
            }
        }));
        v.add(new Variant("watches-from-now", D19, new Breakage() {
            @Override
            public DirectoryWatch watchFrom(BrokenDirectory d, DirectoryScope scope, DirectorySnapshot from,
                    DirectoryListener l) {
                return d.delegate.watch(scope, l); // its own snapshot, not the read
            }
        }));
        v.add(new Variant("misses-changes-before-the-watch", D19, new Breakage() {
            @Override
            public DirectoryWatch watchFrom(BrokenDirectory d, DirectoryScope scope, DirectorySnapshot from,
                    DirectoryListener l) {
                return d.delegate.watch(scope, new Forwarding(l) {
                    @Override
                    public void snapshot(DirectorySnapshot s) {
                        to.snapshot(from); // the read, and only what comes after the watch opened
                    }
                });
            }
        }));
        v.add(new Variant("deletes-unconditionally", D20, new Breakage() {
            @Override
            public Publication publish(BrokenDirectory d, String id, String group, LongFunction<byte[]> value,
                    Duration ttl, PublicationListener l) {
                Publication p = d.delegate.publish(id, group, value, ttl, l);
                String groupKey = DirectoryScope.groupKey(d.prefix(), group, id);
                return new ForwardingPublication(p) {
                    @Override
                    public boolean deleteIfAt(long revision) {
                        d.deployment.deleteRaw(p.key());
                        d.deployment.deleteRaw(groupKey);
                        return true;
                    }
                };
            }
        }));
        v.add(new Variant("deletes-the-member-key-alone", D20, new Breakage() {
            @Override
            public Publication publish(BrokenDirectory d, String id, String group, LongFunction<byte[]> value,
                    Duration ttl, PublicationListener l) {
                Publication p = d.delegate.publish(id, group, value, ttl, l);
                return new ForwardingPublication(p) {
                    @Override
                    public boolean deleteIfAt(long revision) {
                        DirectorySnapshot now = d.delegate.read(DirectoryScope.member(id)).join();
                        long at = now.entries().isEmpty() ? 0 : now.entries().get(0).revision();
                        if (at != revision) {
                            return false;
                        }
                        d.deployment.deleteRaw(p.key()); // the group key stays
                        return true;
                    }
                };
            }
        }));
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

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
