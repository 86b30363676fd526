package io.blockxfer.tck.directory;

import static io.blockxfer.tck.directory.DirectoryRules.B17;
import static io.blockxfer.tck.directory.DirectoryRules.B18;
import static io.blockxfer.tck.directory.DirectoryRules.B19;
import static io.blockxfer.tck.directory.DirectoryRules.B20;
import static io.blockxfer.tck.directory.DirectoryRules.B21;
import static io.blockxfer.tck.directory.DirectoryRules.B22;
import static io.blockxfer.tck.directory.DirectoryRules.B23;
import static io.blockxfer.tck.directory.DirectoryRules.B24;
import static io.blockxfer.tck.directory.DirectoryRules.B25;
import static io.blockxfer.tck.directory.DirectoryRules.B26;
import static io.blockxfer.tck.directory.DirectoryRules.B28;
import static io.blockxfer.tck.directory.DirectoryRules.B30;
import static io.blockxfer.tck.directory.DirectoryRules.B32;
import static io.blockxfer.tck.directory.Breakages.decoded;
import static io.blockxfer.tck.directory.Breakages.rewriting;
import static io.blockxfer.tck.directory.Breakages.signed;
import static io.blockxfer.tck.directory.Breakages.RING;

import io.blockxfer.directory.DirectoryEntry;
import io.blockxfer.directory.DirectoryEvent;
import io.blockxfer.directory.DirectoryListener;
import io.blockxfer.directory.DirectoryScope;
import io.blockxfer.directory.DirectorySnapshot;
import io.blockxfer.directory.DirectoryWatch;
import io.blockxfer.directory.MemberEntry;
import io.blockxfer.directory.Membership;
import io.blockxfer.directory.Publication;
import io.blockxfer.directory.PublicationListener;
import io.blockxfer.tck.ForwardingTransport;
import io.blockxfer.tck.directory.Breakages.Breakage;
import io.blockxfer.tck.directory.Breakages.BrokenDirectory;
import io.blockxfer.tck.directory.Breakages.Forwarding;
import io.blockxfer.tck.directory.Breakages.Variant;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.PeerTraffic;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongFunction;

/**
 * The broken variants of the members-on-demand rules (B17 on): memberships that follow too much or
 * too little, watches of a resolved member's key that launder, hide or drop, a held set that
 * ignores traffic, deletes applied by member id, resolutions served from a stale cache, an owner
 * kept from hearing of a newer process under its id, a read that answers nobody when it could not
 * reach the store; and two transports that B30 (a member left out while its registration is
 * replaced) shares: one that drops removals during a registration, one that reports registrations
 * in place early.
 */
final class BrokenResolutions {

    private BrokenResolutions() {
    }

    static void variants(List<Variant> v) {
        Breakage followsEveryMember = new Breakage() {
            @Override
            public Membership.Builder configure(Membership.Builder builder) {
                return builder.followAll(); // over the rule's followNone or followGroups
            }
        };
        v.add(new Variant("follows-every-member", B17, followsEveryMember));
        v.add(new Variant("follows-every-member", B21, followsEveryMember));
        v.add(new Variant("widens-a-member-watch", B17, new MemberWatchBreakage() {
            @Override
            DirectoryWatch memberWatch(BrokenDirectory d, DirectoryScope scope, DirectoryListener l) {
                return d.delegate.watch(DirectoryScope.members(), l); // the whole prefix for one member
            }
        }));
        v.add(new Variant("launders-resolved-entries", B18, new MemberWatchBreakage() {
            @Override
            DirectoryListener memberListener(DirectoryListener l) {
                return rewriting(l, true, (key, value) -> {
                    MemberEntry e = decoded(value);
                    return e == null ? null : Map.entry(key, signed(e.memberId(), e.epoch(), e.peerDescriptor()));
                });
            }
        }));
        v.add(new Variant("hides-refused-entries", B18, new MemberWatchBreakage() {
            /** Lists only the entries that decode under the ring: a refused entry looks like no entry. */
            @Override
            DirectoryListener memberListener(DirectoryListener l) {
                return new Forwarding(l) {
                    @Override
                    public void snapshot(DirectorySnapshot s) {
                        to.snapshot(new DirectorySnapshot(s.revision(), s.entries().stream().filter(e -> {
                            try {
                                MemberEntry.decode(e.value(), RING);
                                return true;
                            } catch (RuntimeException ex) {
                                return false;
                            }
                        }).toList()));
                    }
                };
            }
        }));
        v.add(new Variant("drops-events-of-a-member-watch", B19, new MemberWatchBreakage() {
            @Override
            DirectoryListener memberListener(DirectoryListener l) {
                return new Forwarding(l) {
                    @Override
                    public void changed(DirectoryEvent e) {
                        // the snapshot was the read; nothing follows it
                    }
                };
            }
        }));
        v.add(new Variant("ignores-deletes-of-a-member-watch", B19, new MemberWatchBreakage() {
            @Override
            DirectoryListener memberListener(DirectoryListener l) {
                return new Forwarding(l) {
                    @Override
                    public void changed(DirectoryEvent e) {
                        if (e.type() == DirectoryEvent.Type.PUT) {
                            to.changed(e);
                        }
                    }
                };
            }
        }));
        v.add(new Variant("holds-fewer-than-its-limit", B20, new Breakage() {
            @Override
            public Membership.Builder configure(Membership.Builder builder) {
                return builder.maxHeld(1);
            }
        }));
        Breakage reportsNothingInFlight = new Breakage() {
            @Override
            public DataTransport membershipTransport(DataTransport transport) {
                return new ForwardingTransport(transport) {
                    @Override
                    public java.util.Optional<PeerTraffic> traffic(String peerId) {
                        return delegate.traffic(peerId).map(t -> new PeerTraffic(t.submitted(), 0));
                    }
                };
            }
        };
        v.add(new Variant("reports-nothing-in-flight", B20, reportsNothingInFlight));
        v.add(new Variant("reports-nothing-in-flight", B32, reportsNothingInFlight));
        v.add(new Variant("publishes-no-group-key", B21, new Breakage() {
            @Override
            public Publication publish(BrokenDirectory d, String id, String group, LongFunction<byte[]> value,
                    Duration ttl, PublicationListener l) {
                return d.delegate.publish(id, value, ttl, l); // the entry names its group; no group key is written
            }
        }));
        v.add(new Variant("deletes-by-member-id", B22, new Breakage() {
            /** A group's watch reports each delete of a group key under the member's own key. */
            @Override
            public DirectoryWatch watch(BrokenDirectory d, DirectoryScope scope, DirectoryListener l) {
                if (scope.isSingleKey()) {
                    return d.delegate.watch(scope, l);
                }
                String groups = d.prefix() + DirectoryScope.GROUP_SEGMENT;
                return d.delegate.watch(scope, new Forwarding(l) {
                    @Override
                    public void changed(DirectoryEvent e) {
                        if (e.type() == DirectoryEvent.Type.DELETE && e.key().startsWith(groups)) {
                            String id = e.key().substring(e.key().lastIndexOf('/') + 1);
                            to.changed(DirectoryEvent.delete(d.prefix() + id, e.revision(), e.isResync()));
                            return;
                        }
                        to.changed(e);
                    }
                });
            }
        }));
        v.add(new Variant("serves-resolutions-from-a-cache", B23, new MemberWatchBreakage() {
            /** Per key: the first snapshot a resolution's watch saw, delivered to every later one. */
            private final Map<DirectoryScope, List<DirectoryEntry>> cache = new java.util.concurrent.ConcurrentHashMap<>();

            @Override
            DirectoryWatch memberWatch(BrokenDirectory d, DirectoryScope scope, DirectoryListener l) {
                return d.delegate.watch(scope, new Forwarding(l) {
                    @Override
                    public void snapshot(DirectorySnapshot s) {
                        List<DirectoryEntry> first = cache.computeIfAbsent(scope, k -> s.entries());
                        to.snapshot(new DirectorySnapshot(s.revision(), first));
                    }
                });
            }
        }));
        v.add(new Variant("hides-its-own-key-from-its-owner", B24, new Breakage() {
            /** A client that publishes a member id never hears of puts of that id's key: not its own, not another's. */
            @Override
            public Publication publish(BrokenDirectory d, String id, LongFunction<byte[]> value, Duration ttl,
                    PublicationListener l) {
                d.published.add(d.prefix() + id);
                return d.delegate.publish(id, value, ttl, l);
            }

            @Override
            public DirectoryListener listener(BrokenDirectory d, DirectoryListener l) {
                return new Forwarding(l) {
                    @Override
                    public void changed(DirectoryEvent e) {
                        if (e.type() == DirectoryEvent.Type.PUT && d.published.contains(e.key())) {
                            return;
                        }
                        to.changed(e);
                    }
                };
            }
        }));
        v.add(new Variant("ignores-its-resolve-timeout", B25, new Breakage() {
            /** Whatever the application asks, a resolution waits for its registration for ten minutes. */
            @Override
            public Membership.Builder configure(Membership.Builder builder) {
                return builder.resolveTimeout(Duration.ofMinutes(10));
            }
        }));
        v.add(new Variant("forgets-released-epochs", B26, new MemberWatchBreakage() {
            /** Across the member watches resolutions open, an entry older than one seen is shown as a newer one. */
            private final Map<String, Long> highest = new ConcurrentHashMap<>();

            @Override
            DirectoryListener memberListener(DirectoryListener l) {
                return rewriting(l, true, (key, value) -> {
                    MemberEntry e = decoded(value);
                    if (e == null) {
                        return null;
                    }
                    long top = highest.merge(key, e.epoch(), Math::max);
                    if (e.epoch() == top) {
                        return null;
                    }
                    highest.put(key, top + 1);
                    return Map.entry(key, signed(e.memberId(), top + 1, e.peerDescriptor()));
                });
            }
        }));
        v.add(new Variant("hides-failed-registrations", B25, new Breakage() {
            /** A registration the transport refuses is tried again every 50 ms; the membership never hears of it. */
            @Override
            public DataTransport membershipTransport(DataTransport transport) {
                return new ForwardingTransport(transport) {
                    @Override
                    public CompletableFuture<Void> addPeerAsync(String peerId, PeerDescriptor peer) {
                        CompletableFuture<Void> result = new CompletableFuture<>();
                        attempt(peerId, peer, result);
                        return result;
                    }

                    private void attempt(String peerId, PeerDescriptor peer, CompletableFuture<Void> result) {
                        var unused = delegate.addPeerAsync(peerId, peer).whenComplete((done, e) -> {
                            if (e == null) {
                                result.complete(null);
                            } else {
                                CompletableFuture.delayedExecutor(50, TimeUnit.MILLISECONDS)
                                        .execute(() -> attempt(peerId, peer, result));
                            }
                        });
                    }
                };
            }
        }));
        v.add(new Variant("reads-nothing-when-unreachable", B28, new Breakage() {
            /** Answers a read that could not reach the store with an empty snapshot, as if nobody were there. */
            @Override
            public CompletableFuture<DirectorySnapshot> read(BrokenDirectory d, DirectoryScope scope) {
                return d.defaultRead(scope).exceptionally(e -> new DirectorySnapshot(0, List.of()));
            }
        }));
        Breakage keepsTheLateRegistration = new Breakage() {
            /** A removal asked while the peer's registration is still under way is dropped. */
            @Override
            public DataTransport membershipTransport(DataTransport transport) {
                return new ForwardingTransport(transport) {
                    private final Set<String> underWay = ConcurrentHashMap.newKeySet();

                    @Override
                    public CompletableFuture<Void> addPeerAsync(String peerId, PeerDescriptor peer) {
                        underWay.add(peerId);
                        return delegate.addPeerAsync(peerId, peer).whenComplete((v, e) -> underWay.remove(peerId));
                    }

                    @Override
                    public boolean removePeer(String peerId) {
                        return underWay.contains(peerId) || delegate.removePeer(peerId);
                    }
                };
            }
        };
        v.add(new Variant("keeps-the-late-registration", B25, keepsTheLateRegistration));
        v.add(new Variant("keeps-the-late-registration", B30, keepsTheLateRegistration));
        v.add(new Variant("completes-registrations-early", B30, new Breakage() {
            /** A registration reported in place as soon as it is asked, while the backend still works on it. */
            @Override
            public DataTransport membershipTransport(DataTransport transport) {
                return new ForwardingTransport(transport) {
                    @Override
                    public CompletableFuture<Void> addPeerAsync(String peerId, PeerDescriptor peer) {
                        var unused = delegate.addPeerAsync(peerId, peer);
                        return CompletableFuture.completedFuture(null);
                    }
                };
            }
        }));
    }

    /**
     * A defect of the watches a membership opens for the members it resolves: the watches of one
     * key opened once the client published (a membership watches its own keys before it publishes).
     */
    abstract static class MemberWatchBreakage implements Breakage {
        @Override
        public Publication publish(BrokenDirectory d, String id, LongFunction<byte[]> value, Duration ttl,
                PublicationListener l) {
            Publication p = d.delegate.publish(id, value, ttl, l);
            d.published.add(p.key());
            return p;
        }

        @Override
        public DirectoryWatch watch(BrokenDirectory d, DirectoryScope scope, DirectoryListener l) {
            return scope.isSingleKey() && !d.published.isEmpty() ? memberWatch(d, scope, l)
                    : d.delegate.watch(scope, listener(d, l));
        }

        /** The watch of a resolved member's key. */
        DirectoryWatch memberWatch(BrokenDirectory d, DirectoryScope scope, DirectoryListener l) {
            return d.delegate.watch(scope, memberListener(l));
        }

        /** The listener of a resolved member's watch. */
        DirectoryListener memberListener(DirectoryListener l) {
            return l;
        }
    }
}
