package io.blockxfer.holds;

import io.blockxfer.holds.internal.jfr.HoldCreatedEvent;
import io.blockxfer.holds.internal.jfr.HoldEndedEvent;
import io.blockxfer.holds.internal.jfr.HoldMessageRefusedEvent;
import io.blockxfer.holds.internal.jfr.LeaseEndedEvent;
import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Tells the {@link HoldObserver} and JFR what happened. An observer that throws is logged once and
 * otherwise ignored: metrics never change what holds do.
 *
 * <p><b>Thread safety:</b> thread-safe; called after the holds' locks are released.
 */
final class Signals {

    private static final System.Logger LOG = System.getLogger(Holds.class.getName());

    private final String agent;
    private final HoldObserver observer;
    private final AtomicBoolean loggedThrow = new AtomicBoolean();

    Signals(String agent, HoldObserver observer) {
        this.agent = agent;
        this.observer = observer;
    }

    void opened() {
        observe(() -> observer.holdsOpened(agent));
    }

    private void observe(Runnable call) {
        if (observer == HoldObserver.NONE) {
            return;
        }
        try {
            call.run();
        } catch (RuntimeException e) {
            if (loggedThrow.compareAndSet(false, true)) {
                LOG.log(Level.WARNING, "holds: the observer " + observer + " threw; ignored from now on", e);
            }
        }
    }

    void holdCreated(Hold h, long bytes) {
        observe(() -> observer.holdCreated(h.peer, h.blocks.length, bytes));
        HoldCreatedEvent e = new HoldCreatedEvent();
        if (e.isEnabled()) {
            e.agent = agent;
            e.peer = h.peer;
            e.holdId = h.id;
            e.blocks = h.blocks.length;
            e.bytes = bytes;
            e.ttl = h.ttlNanos;
            e.commit();
        }
    }

    void holdEnded(HoldEnd end) {
        observe(() -> observer.holdEnded(end));
        HoldEndedEvent e = new HoldEndedEvent();
        if (e.isEnabled()) {
            e.agent = agent;
            e.peer = end.peer();
            e.holdId = end.holdId();
            e.reason = end.reason().name();
            e.blocks = end.blockCount();
            e.bytes = end.bytes();
            e.heldFor = end.heldFor().toNanos();
            e.renewals = end.renewals();
            e.commit();
        }
    }

    void renewalsGranted(String peer, int holds) {
        observe(() -> observer.renewalsGranted(peer, holds));
    }

    void renewalsSent(String owner, int holds, int messages, int bytes) {
        observe(() -> observer.renewalsSent(owner, holds, messages, bytes));
    }

    void leaseEnded(Lease lease, Lease.EndReason reason, long refused) {
        observe(() -> observer.leaseEnded(lease.owner(), reason, lease.blockCount()));
        LeaseEndedEvent e = new LeaseEndedEvent();
        if (e.isEnabled()) {
            e.agent = agent;
            e.owner = lease.owner();
            e.holdId = lease.holdId();
            e.reason = reason.name();
            e.blocks = lease.blockCount();
            e.transfersRefused = refused;
            e.commit();
        }
    }

    void transferRefused(String owner, Lease.EndReason why) {
        observe(() -> observer.transferRefused(owner, why));
    }

    void messageRefused(String sender, String why, long holdId) {
        observe(() -> observer.messageRefused(sender, why));
        HoldMessageRefusedEvent e = new HoldMessageRefusedEvent();
        if (e.isEnabled()) {
            e.agent = agent;
            e.sender = sender;
            e.why = why;
            e.holdId = holdId;
            e.commit();
        }
    }
}
