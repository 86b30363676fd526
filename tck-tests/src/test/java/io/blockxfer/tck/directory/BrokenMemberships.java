package io.blockxfer.tck.directory;

import static io.blockxfer.tck.directory.Breakages.decoded;
import static io.blockxfer.tck.directory.Breakages.envelopeLength;
import static io.blockxfer.tck.directory.Breakages.releasing;
import static io.blockxfer.tck.directory.Breakages.rewriting;
import static io.blockxfer.tck.directory.Breakages.signed;
import static io.blockxfer.tck.directory.DirectoryRules.B10;
import static io.blockxfer.tck.directory.DirectoryRules.B11;
import static io.blockxfer.tck.directory.DirectoryRules.B13;
import static io.blockxfer.tck.directory.DirectoryRules.B14;
import static io.blockxfer.tck.directory.DirectoryRules.B15;
import static io.blockxfer.tck.directory.DirectoryRules.B16;
import static io.blockxfer.tck.directory.DirectoryRules.B29;
import static io.blockxfer.tck.directory.DirectoryRules.B31;
import static io.blockxfer.tck.directory.DirectoryRules.B33;
import static io.blockxfer.tck.directory.DirectoryRules.B34;
import static io.blockxfer.tck.directory.DirectoryRules.B1;
import static io.blockxfer.tck.directory.DirectoryRules.B2;
import static io.blockxfer.tck.directory.DirectoryRules.B3;
import static io.blockxfer.tck.directory.DirectoryRules.B4;
import static io.blockxfer.tck.directory.DirectoryRules.B5;
import static io.blockxfer.tck.directory.DirectoryRules.B6;
import static io.blockxfer.tck.directory.DirectoryRules.B7;
import static io.blockxfer.tck.directory.DirectoryRules.B8;

import io.blockxfer.directory.DirectoryEvent;
import io.blockxfer.directory.DirectoryLimits;
import io.blockxfer.directory.DirectoryListener;
import io.blockxfer.directory.DirectorySnapshot;
import io.blockxfer.directory.MemberEntry;
import io.blockxfer.directory.Membership;
import io.blockxfer.directory.MembershipListener;
import io.blockxfer.directory.Publication;
import io.blockxfer.directory.PublicationListener;
import io.blockxfer.directory.Refusal;
import io.blockxfer.transport.PeerDescriptor;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongFunction;
import io.blockxfer.tck.directory.Breakages.Breakage;
import io.blockxfer.tck.directory.Breakages.BrokenDirectory;
import io.blockxfer.tck.directory.Breakages.FakePublication;
import io.blockxfer.tck.directory.Breakages.ForwardingPublication;
import io.blockxfer.tck.directory.Breakages.Forwarding;
import io.blockxfer.tck.directory.Breakages.Variant;

/**
 * The broken variants of the membership rules B1-B16, B29 and B31 that are the membership's alone: memberships
 * shown laundered entries or given broken listeners, settings and transports, and directories that
 * keep the first entry, ignore deletes, hide re-registrations or refusals, drop peers on a
 * disconnect, cannot restore or restore too often, or delete nothing at a goodbye. The variants shared with a directory rule are
 * {@link BrokenDirectories}'; those of members on demand, {@link BrokenResolutions}'.
 */
final class BrokenMemberships {

    private BrokenMemberships() {
    }

    static void variants(List<Variant> v) {
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
        Breakage hidesReRegistrations = new Breakage() {
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
        };
        v.add(new Variant("hides-re-registrations", B14, hidesReRegistrations));
        v.add(new Variant("hides-re-registrations", B33, hidesReRegistrations));
        v.add(new Variant("hides-re-registrations", B34, hidesReRegistrations));
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
        v.add(new Variant("restores-over-and-over", B29, new Breakage() {
            /** A restore that writes the entry eight times, as a retry loop that never heard its own answer would. */
            @Override
            public Publication publish(BrokenDirectory d, String id, LongFunction<byte[]> value, Duration ttl,
                    PublicationListener l) {
                return new ForwardingPublication(d.delegate.publish(id, value, ttl, l)) {
                    @Override
                    public long restore() {
                        long at = to.restore();
                        for (int i = 1; i < 8; i++) {
                            at = to.restore();
                        }
                        return at;
                    }
                };
            }
        }));
        v.add(new Variant("deletes-nothing-at-goodbye", B31, new Breakage() {
            /** A conditional delete that says it deleted and leaves the key to the lease's revoke. */
            @Override
            public Publication publish(BrokenDirectory d, String id, LongFunction<byte[]> value, Duration ttl,
                    PublicationListener l) {
                return new ForwardingPublication(d.delegate.publish(id, value, ttl, l)) {
                    @Override
                    public boolean deleteIfAt(long revision) {
                        return true;
                    }
                };
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
    }
}
