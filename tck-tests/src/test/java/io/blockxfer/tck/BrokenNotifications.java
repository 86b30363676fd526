package io.blockxfer.tck;

import io.blockxfer.loopback.LoopbackFaults;
import io.blockxfer.loopback.LoopbackProvider;
import io.blockxfer.transport.CancelMode;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.Notification;
import io.blockxfer.transport.NotificationHandler;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.TransferFuture;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.spi.NotificationSink;
import io.blockxfer.transport.spi.TransferEngine;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.UnaryOperator;

/**
 * Backends broken in what they do with notifications, one defect each, for the kit's N rules:
 * engines under the managed transport (both sides of a pair use them), initiator decorators, and
 * providers whose targets ignore part of their config.
 */
final class BrokenNotifications {

    private BrokenNotifications() {
    }

    /** The loopback engine with its notifications delivered 300 ms before the transfer's bytes are copied. */
    static UnaryOperator<TransferEngine> notifiesBeforeTheBytesLand() {
        return e -> {
            e.feature(LoopbackFaults.class).orElseThrow().notifyBeforeData(Duration.ofMillis(300));
            return new ForwardingEngine(e);
        };
    }

    /** An engine that hands every received message to the transport twice. */
    static UnaryOperator<TransferEngine> deliversNotificationsTwice() {
        return e -> new ForwardingEngine(e) {
            @Override
            public boolean bindNotificationSink(NotificationSink sink) {
                return delegate.bindNotificationSink((message, peer, name) -> {
                    sink.received(message, peer, name);
                    sink.received(message, peer, name);
                });
            }
        };
    }

    /** An engine that loses every 50th message it receives. */
    static UnaryOperator<TransferEngine> dropsEvery50thNotification() {
        return e -> new ForwardingEngine(e) {
            final AtomicInteger count = new AtomicInteger();

            @Override
            public boolean bindNotificationSink(NotificationSink sink) {
                return delegate.bindNotificationSink((message, peer, name) -> {
                    if (count.incrementAndGet() % 50 != 0) {
                        sink.received(message, peer, name);
                    }
                });
            }
        };
    }

    /** An initiator that remembers each notified WRITE's payload, to send it again as a message of its own. */
    private static class Resending extends ForwardingTransport {
        private final Map<Long, byte[]> payloads = new ConcurrentHashMap<>();
        private final Map<Long, String> peers = new ConcurrentHashMap<>();

        Resending(DataTransport delegate) {
            super(delegate);
        }

        @Override
        public long writeBlocks(String peerId, int[] l, int[] r, byte[] n) {
            long id = delegate.writeBlocks(peerId, l, r, n);
            payloads.put(id, n.clone());
            peers.put(id, peerId);
            return id;
        }

        /** Sends transfer {@code id}'s payload again as a message, once; nothing for a transfer without one. */
        void resend(long id) {
            byte[] p = payloads.remove(id);
            if (p != null) {
                delegate.sendNotification(peers.get(id), p);
            }
        }
    }

    /** An initiator that "retries" the notification of a transfer reported failed as a message on its own. */
    static UnaryOperator<DataTransport> notifiesFailedTransfers() {
        return t -> new Resending(t) {
            @Override
            public PollResult poll(String peerId) {
                PollResult result = delegate.poll(peerId);
                for (int i = 0; i < result.failedCount(); i++) {
                    resend(result.failedId(i));
                }
                return result;
            }
        };
    }

    /**
     * An initiator that, when a notified WRITE is cancelled at once, "makes sure" the target hears
     * of it by sending the transfer's payload again as a message of its own.
     */
    static UnaryOperator<DataTransport> notifiesACancelledTransferAgain() {
        return t -> new Resending(t) {
            @Override
            public long[] cancel(long[] ids, CancelMode mode) {
                long[] result = delegate.cancel(ids, mode);
                for (long id : ids) {
                    resend(id);
                }
                return result;
            }
        };
    }

    /** An initiator that cuts long notifications down to the bound instead of refusing them. */
    static UnaryOperator<DataTransport> truncatesOversizedNotifications() {
        return t -> new ForwardingTransport(t) {
            private byte[] cut(byte[] n) {
                return n.length > Notification.MAX_PAYLOAD_BYTES ? Arrays.copyOf(n, Notification.MAX_PAYLOAD_BYTES) : n;
            }

            @Override
            public long writeBlocks(String peerId, int[] l, int[] r, byte[] n) {
                return delegate.writeBlocks(peerId, l, r, cut(n));
            }

            @Override
            public long readBlocks(String peerId, int[] l, int[] r, byte[] n) {
                return delegate.readBlocks(peerId, l, r, cut(n));
            }

            @Override
            public TransferFuture writeBlocksAsync(String peerId, int[] l, int[] r, byte[] n) {
                return delegate.writeBlocksAsync(peerId, l, r, cut(n));
            }

            @Override
            public boolean sendNotification(String peerId, byte[] payload) {
                return delegate.sendNotification(peerId, cut(payload));
            }
        };
    }

    /** An initiator that says it sent a message without a transfer, and did not. */
    static UnaryOperator<DataTransport> losesStandaloneMessages() {
        return t -> new ForwardingTransport(t) {
            @Override
            public boolean sendNotification(String peerId, byte[] payload) {
                java.util.Objects.requireNonNull(payload, "payload");
                return delegate.traffic(peerId).isPresent();
            }
        };
    }

    /** A receiver whose wait polls with sleeps, and goes on sleeping when the transport closes. */
    static UnaryOperator<DataTransport> closeLeavesNotificationWaiters() {
        return t -> new ForwardingTransport(t) {
            @Override
            public int pollNotifications(NotificationHandler h, long timeout, TimeUnit unit) {
                long end = System.nanoTime() + unit.toNanos(timeout);
                while (System.nanoTime() - end < 0) {
                    try {
                        int n = delegate.pollNotifications(h);
                        if (n > 0) {
                            return n;
                        }
                    } catch (IllegalStateException closed) {
                        // the transport closed: the broken wait sleeps on
                    }
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
                }
                return 0;
            }
        };
    }

    /** A receiver whose wait sleeps to its limit before it looks. */
    static UnaryOperator<DataTransport> notificationWaitSleepsToItsLimit() {
        return t -> new ForwardingTransport(t) {
            @Override
            public int pollNotifications(NotificationHandler h, long timeout, TimeUnit unit) throws InterruptedException {
                if (timeout < 0 || unit.toHours(timeout) > 24) {
                    throw new IllegalArgumentException("bad limit " + timeout + " " + unit);
                }
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                unit.sleep(timeout);
                return delegate.pollNotifications(h);
            }
        };
    }

    /** A receiver whose publisher asks for everything at once, whatever its subscriber requested. */
    static UnaryOperator<DataTransport> publisherIgnoresDemand() {
        return t -> new ForwardingTransport(t) {
            @Override
            public Flow.Publisher<Notification> notifications() {
                Flow.Publisher<Notification> real = delegate.notifications();
                return subscriber -> real.subscribe(new Flow.Subscriber<Notification>() {
                    @Override public void onSubscribe(Flow.Subscription s) {
                        s.request(Long.MAX_VALUE);
                        subscriber.onSubscribe(new Flow.Subscription() {
                            @Override public void request(long n) {
                                if (n <= 0) {
                                    s.request(n);
                                }
                            }

                            @Override public void cancel() {
                                s.cancel();
                            }
                        });
                    }
                    @Override public void onNext(Notification n) {
                        subscriber.onNext(n);
                    }
                    @Override public void onError(Throwable e) {
                        subscriber.onError(e);
                    }
                    @Override public void onComplete() {
                        subscriber.onComplete();
                    }
                });
            }
        };
    }

    /** Loopback, but every transport accepts unsigned notifications (and peers) whatever its config says. */
    public static final class AcceptsUnauthenticatedNotifications extends ConfigIgnoringProvider {
        /** For the kit's harness. */
        public AcceptsUnauthenticatedNotifications() {
        }

        @Override
        TransportConfig change(TransportConfig config) {
            return config.toBuilder().acceptUnsignedPeers(true).build();
        }
    }

    /** Loopback, but every transport's notification queue has the default capacity whatever its config says. */
    public static final class NotificationQueueIgnoresItsCapacity extends ConfigIgnoringProvider {
        /** For the kit's harness. */
        public NotificationQueueIgnoresItsCapacity() {
        }

        @Override
        TransportConfig change(TransportConfig config) {
            return config.toBuilder().notificationQueueCapacity(TransportConfig.DEFAULT_NOTIFICATION_QUEUE_CAPACITY)
                    .build();
        }
    }

    /** The loopback provider, opening transports with a config changed behind the caller's back. */
    abstract static class ConfigIgnoringProvider extends ForwardingProvider<LoopbackProvider> {
        ConfigIgnoringProvider() {
            super(new LoopbackProvider());
        }

        abstract TransportConfig change(TransportConfig config);

        @Override
        public DataTransport open(TransportConfig config) {
            return delegate.open(change(config));
        }
    }
}
