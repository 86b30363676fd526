package io.blockxfer.tck.directory;

import static io.blockxfer.tck.directory.Breakages.prefixWatch;
import static io.blockxfer.tck.directory.Breakages.releasing;
import static io.blockxfer.tck.directory.Breakages.sleep;
import static io.blockxfer.tck.directory.DirectoryRules.B10;
import static io.blockxfer.tck.directory.DirectoryRules.B12;
import static io.blockxfer.tck.directory.DirectoryRules.B1;
import static io.blockxfer.tck.directory.DirectoryRules.B9;
import static io.blockxfer.tck.directory.DirectoryRules.D10;
import static io.blockxfer.tck.directory.DirectoryRules.D11;
import static io.blockxfer.tck.directory.DirectoryRules.D12;
import static io.blockxfer.tck.directory.DirectoryRules.B27;
import static io.blockxfer.tck.directory.DirectoryRules.B33;
import static io.blockxfer.tck.directory.DirectoryRules.D13;
import static io.blockxfer.tck.directory.DirectoryRules.D14;
import static io.blockxfer.tck.directory.DirectoryRules.D15;
import static io.blockxfer.tck.directory.DirectoryRules.D16;
import static io.blockxfer.tck.directory.DirectoryRules.D17;
import static io.blockxfer.tck.directory.DirectoryRules.D18;
import static io.blockxfer.tck.directory.DirectoryRules.D19;
import static io.blockxfer.tck.directory.DirectoryRules.D1;
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
import io.blockxfer.directory.DirectoryEvent;
import io.blockxfer.directory.DirectoryLimits;
import io.blockxfer.directory.DirectoryListener;
import io.blockxfer.directory.DirectoryScope;
import io.blockxfer.directory.DirectorySnapshot;
import io.blockxfer.directory.DirectoryUnavailableException;
import io.blockxfer.directory.DirectoryWatch;
import io.blockxfer.directory.Publication;
import io.blockxfer.directory.PublicationListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;
import io.blockxfer.tck.directory.Breakages.Breakage;
import io.blockxfer.tck.directory.Breakages.BrokenDirectory;
import io.blockxfer.tck.directory.Breakages.Forwarding;
import io.blockxfer.tck.directory.Breakages.FakePublication;
import io.blockxfer.tck.directory.Breakages.ForwardingPublication;
import io.blockxfer.tck.directory.Breakages.Variant;

/**
 * The deliberately broken directories of the kit's own tests, each with the rule that must catch
 * it: decorators of the in-memory directory's clients (what they deliver, publish and throw) for
 * the D rules, and the variants a D rule and a membership rule share; {@link #all()} is the whole
 * catalogue, the membership rules' own variants from {@link BrokenMemberships} and
 * {@link BrokenResolutions}. What they are made of: {@link Breakages}.
 */
final class BrokenDirectories {

    private BrokenDirectories() {
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
        v.add(new Variant("hides-lease-loss", B33, hidesLoss));
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
        Breakage hangs = new Breakage() {
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
        };
        v.add(new Variant("hangs-when-unreachable", D13, hangs));
        v.add(new Variant("hangs-when-unreachable", B27, hangs));
        Breakage vague = new Breakage() {
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
        };
        v.add(new Variant("vague-unreachable-error", D13, vague));
        v.add(new Variant("vague-unreachable-error", B27, vague));
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
        BrokenMemberships.variants(v);
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
}
