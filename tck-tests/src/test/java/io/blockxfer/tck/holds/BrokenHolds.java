package io.blockxfer.tck.holds;

import io.blockxfer.holds.HoldClock;
import io.blockxfer.holds.HoldEnd;
import io.blockxfer.holds.HoldMessage;
import io.blockxfer.holds.Holds;
import io.blockxfer.tck.ForwardingTransport;
import io.blockxfer.transport.BlockRegion;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.Notification;
import io.blockxfer.transport.NotificationHandler;
import io.blockxfer.transport.PeerTraffic;
import io.blockxfer.transport.TransferFuture;
import java.lang.foreign.Arena;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Holds broken on purpose, each in one way a real implementation (or the transport under it) could
 * be: a release that travels ahead of the data, reads reported done before they ran, a holder
 * that ignores its owner, an owner that ignores renewals, removals or senders, clocks that run
 * wrong, ends reported twice or not at all. {@link BrokenHoldsAreCaughtTest} runs each against the
 * rule that names its defect.
 */
final class BrokenHolds {

    private BrokenHolds() {
    }

    /** A broken variant: its name (as {@link HoldRules#provenBy()} lists it), the rule that catches it, the breakage. */
    record Variant(String name, HoldRules rule, HoldBreakage breakage) {
        @Override
        public String toString() {
            return name + " (" + rule + ")";
        }
    }

    static List<Variant> all() {
        return List.of(
                new Variant("release-before-the-read", HoldRules.H1, holderTransport(CarriedMessageFirst::new)),
                new Variant("reads-done-at-submit", HoldRules.H2, holderTransport(DoneAtSubmit::new)),
                new Variant("release-before-the-write", HoldRules.H3, holderTransport(CarriedMessageFirst::new)),
                new Variant("holder-ignores-revocation", HoldRules.H4, new HoldBreakage() {
                    @Override
                    public NotificationHandler holderFeed(NotificationHandler feed, DataTransport t) {
                        return dropping(feed, HoldMessage.Type.ENDED);
                    }
                }),
                new Variant("expiry-ignores-renewals", HoldRules.H5, new HoldBreakage() {
                    @Override
                    public NotificationHandler ownerFeed(NotificationHandler feed, DataTransport owner) {
                        return n -> {
                            HoldMessage m = decode(n);
                            if (m == null || m.type() != HoldMessage.Type.RENEW) {
                                feed.onNotification(n);
                                return;
                            }
                            // answers as if renewed, and renews nothing
                            int[] granted = new int[m.count()];
                            Arrays.fill(granted, (int) HoldFixture.TTL.toMillis());
                            owner.sendNotification(n.sender(), HoldMessage.renewed(m.round(), m.ids(), granted)
                                    .encode());
                        };
                    }
                }),
                new Variant("lifetime-on-a-slow-owner-clock", HoldRules.H5, ownerClock(2, 1)),
                new Variant("outlives-its-ttl", HoldRules.H6, ownerClock(2, 1)),
                new Variant("expires-before-its-ttl", HoldRules.H6, ownerClock(1, 2)),
                new Variant("writes-on-a-slow-holder-clock", HoldRules.H3, new HoldBreakage() {
                    @Override
                    public Holds.Builder holder(Holds.Builder b, HoldClock clock) {
                        return b.clock(scaled(clock, 2, 1));
                    }
                }),
                new Variant("holder-trusts-a-slow-clock", HoldRules.H7, new HoldBreakage() {
                    @Override
                    public Holds.Builder holder(Holds.Builder b, HoldClock clock) {
                        return b.clock(scaled(clock, 2, 1));
                    }

                    @Override
                    public NotificationHandler holderFeed(NotificationHandler feed, DataTransport t) {
                        return dropping(feed, HoldMessage.Type.ENDED);
                    }
                }),
                new Variant("holder-clock-stands-still", HoldRules.H8, new HoldBreakage() {
                    @Override
                    public Holds.Builder holder(Holds.Builder b, HoldClock clock) {
                        long frozen = clock.nanoTime();
                        return b.clock(() -> frozen);
                    }
                }),
                new Variant("outlives-its-ttl-for-real", HoldRules.H9, ownerClock(2, 1)),
                new Variant("ends-twice", HoldRules.H10, new HoldBreakage() {
                    @Override
                    public Consumer<HoldEnd> ends(Consumer<HoldEnd> sink) {
                        return e -> {
                            sink.accept(e);
                            sink.accept(e);
                        };
                    }
                }),
                new Variant("close-forgets-live-holds", HoldRules.H11, new HoldBreakage() {
                    @Override
                    public Consumer<HoldEnd> ends(Consumer<HoldEnd> sink) {
                        return e -> {
                            if (e.reason() != HoldEnd.Reason.CLOSED) {
                                sink.accept(e);
                            }
                        };
                    }
                }),
                new Variant("ignores-peer-removal", HoldRules.H12, new HoldBreakage() {
                    @Override
                    public DataTransport ownerTransport(DataTransport t) {
                        return new ForwardingTransport(t) {
                            @Override
                            public Optional<PeerTraffic> traffic(String peerId) {
                                return Optional.of(new PeerTraffic(0, 0));
                            }
                        };
                    }
                }),
                new Variant("trusts-any-sender", HoldRules.H13, new HoldBreakage() {
                    @Override
                    public NotificationHandler ownerFeed(NotificationHandler feed, DataTransport owner) {
                        return n -> feed.onNotification(new Notification("holder", n.senderAgent(), n.kind(),
                                n.transferId(), n.payload(), n.authenticated(), n.droppedBefore()));
                    }
                }),
                new Variant("accepts-blocks-outside-the-region", HoldRules.H14, new HoldBreakage() {
                    @Override
                    public DataTransport ownerTransport(DataTransport t) {
                        BlockRegion r = t.region();
                        BlockRegion larger = new BlockRegion(Arena.global().allocate(2 * r.byteSize(), 4096),
                                2 * r.numBlocks(), r.blockLength(), r.ownership());
                        return new ForwardingTransport(t) {
                            @Override
                            public BlockRegion region() {
                                return larger;
                            }
                        };
                    }
                }));
    }

    private static HoldBreakage holderTransport(java.util.function.UnaryOperator<DataTransport> wrap) {
        return new HoldBreakage() {
            @Override
            public DataTransport holderTransport(DataTransport t) {
                return wrap.apply(t);
            }
        };
    }

    /** The owner's clock at {@code num/den} of the rule's speed: 1/2 outlives the TTL, 2/1 cuts it short. */
    private static HoldBreakage ownerClock(long den, long num) {
        return new HoldBreakage() {
            @Override
            public Holds.Builder owner(Holds.Builder b, HoldClock clock) {
                return b.clock(scaled(clock, den, num));
            }
        };
    }

    static HoldClock scaled(HoldClock clock, long den, long num) {
        long origin = clock.nanoTime();
        return () -> origin + (clock.nanoTime() - origin) * num / den;
    }

    static HoldMessage decode(Notification n) {
        byte[] p = n.payload();
        return HoldMessage.isHoldMessage(p) ? HoldMessage.decode(p) : null;
    }

    private static NotificationHandler dropping(NotificationHandler feed, HoldMessage.Type type) {
        return n -> {
            HoldMessage m = decode(n);
            if (m == null || m.type() != type) {
                feed.onNotification(n);
            }
        };
    }

    /**
     * Sends a transfer's notification on its own before submitting the transfer without it: the
     * owner hears "released" before a byte moved.
     */
    static final class CarriedMessageFirst extends ForwardingTransport {
        CarriedMessageFirst(DataTransport t) {
            super(t);
        }

        @Override
        public TransferFuture readBlocksAsync(String peerId, int[] l, int[] r, byte[] n) {
            delegate.sendNotification(peerId, n);
            return delegate.readBlocksAsync(peerId, l, r);
        }

        @Override
        public TransferFuture writeBlocksAsync(String peerId, int[] l, int[] r, byte[] n) {
            delegate.sendNotification(peerId, n);
            return delegate.writeBlocksAsync(peerId, l, r);
        }
    }

    /** Reports every read done when it is submitted, before its bytes moved. */
    static final class DoneAtSubmit extends ForwardingTransport {
        DoneAtSubmit(DataTransport t) {
            super(t);
        }

        private static TransferFuture done(TransferFuture real) {
            TransferFuture f = new TransferFuture(real.transferId(), real.peerId(), id -> { });
            f.complete(null);
            return f;
        }

        @Override
        public TransferFuture readBlocksAsync(String peerId, int[] l, int[] r) {
            return done(delegate.readBlocksAsync(peerId, l, r));
        }

        @Override
        public TransferFuture readBlocksAsync(String peerId, int[] l, int[] r, byte[] n) {
            return done(delegate.readBlocksAsync(peerId, l, r, n));
        }
    }
}
