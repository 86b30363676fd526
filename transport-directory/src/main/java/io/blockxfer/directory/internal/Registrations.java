package io.blockxfer.directory.internal;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.RegistrationSupersededException;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import org.jspecify.annotations.Nullable;

/**
 * The transport's side of a membership: carries out what the {@link MemberTable} decides (adds,
 * re-adds, removes and the flushes of held changes), keeps which members are registered with which
 * epoch, and re-registers every settled member after this process's own entry was lost.
 *
 * <p>While a member's registration is replaced (a new epoch, a re-registration) the member is not
 * in {@link #members()}: the transport tears the old registration down when the new one starts.
 *
 * <p>When its own entry is lost the other members remove this process and tear down their side of
 * its connections, while their entries, and so the table, stay as they were. So the first
 * publication after a loss re-registers every member the table holds settled
 * ({@link MemberTable#settled()}), reported as {@link Signals#reRegistered}. A member whose change
 * is still held by the coalescing gets that change instead, one removed meanwhile is not among
 * them, nor one whose registration began after that publication (news the watch delivered while
 * the publication was under way: its connections are new already).
 *
 * <p><b>As soon as it is writable.</b> A registration's completion comes on the transport's own
 * thread. There, before anything goes to the loop, the member is made writable: it enters
 * {@link #members()} and the callers waiting for it ({@link #whenWritable}: a resolution's) complete
 * with its epoch, unless the loop has replaced or removed the registration meanwhile (a
 * {@link Ticket} per registration decides, under its lock); the loop then tells the listeners. So
 * a resolution costs one hand-over less than a round through the loop.
 *
 * <p><b>Thread safety:</b> confined to the membership's loop, but {@link #members()} and
 * {@link #epochOf} may be read from any thread, and a registration's completion settles its
 * {@link Ticket} on the transport's thread.
 */
final class Registrations {

    private static final System.Logger LOG = System.getLogger("io.blockxfer.directory.Membership");

    /** What the on-demand side hears of registrations; called on the loop. */
    interface Observer {
        /** {@code id}'s registration starts: the callers waiting for it may {@link #whenWritable} now. */
        void registering(String id);

        /** {@code id}'s registration at {@code epoch} completed. */
        void registered(String id, long epoch);

        /** {@code id}'s registration at {@code epoch} failed; it is not registered. */
        void registrationFailed(String id, long epoch, Throwable cause);

        /** {@code id} left: its entry was deleted and it is removed from the transport. */
        void left(String id);
    }

    private final DataTransport transport;
    private final String self;
    private final MemberTable table;
    private final SerialLoop loop;
    private final Signals signals;
    private final Observer observer;
    private final Map<String, Long> registered = new ConcurrentHashMap<>();
    /** Each member's registration under way or in place: the one the transport's completion may still settle. */
    private final Map<String, Ticket> tickets = new ConcurrentHashMap<>();
    /** Members whose registration is being replaced, with the epoch they were registered with. */
    private final Map<String, Long> replacing = new HashMap<>();
    /**
     * The epoch the listeners last heard each member added or updated with. A registration becomes
     * writable on the transport's thread before the loop tells the listeners, so
     * {@link #registered} may hold a member they never heard added: whether a registration is told
     * as added or as updated follows this map. Loop only.
     */
    private final Map<String, Long> told = new HashMap<>();
    /** The publication count at which each member's latest registration began. */
    private final Map<String, Long> registeredAt = new HashMap<>();
    private long publications;

    Registrations(DataTransport transport, String self, MemberTable table, SerialLoop loop, Signals signals,
            Observer observer) {
        this.transport = transport;
        this.self = self;
        this.table = table;
        this.loop = loop;
        this.signals = signals;
        this.observer = observer;
    }

    /** The members registered now, with their epochs. Any thread. */
    Map<String, Long> members() {
        return Map.copyOf(registered);
    }

    /** The epoch {@code id} is registered with, or null when it is not (or is being replaced). Any thread. */
    @Nullable Long epochOf(String id) {
        return registered.get(id);
    }

    /** Whether {@code id} is registered, its registration is being replaced, or its first one is under way. */
    boolean holds(String id) {
        return registered.containsKey(id) || replacing.containsKey(id) || tickets.containsKey(id);
    }

    /** Whether {@code id}'s registration is being replaced. */
    boolean isReplacing(String id) {
        return replacing.containsKey(id);
    }

    /** Carries out {@code step} of the table. */
    void carry(MemberTable.Step step) {
        switch (step) {
            case MemberTable.Nothing n -> { }
            case MemberTable.Stale s -> throw new IllegalStateException("a stale entry is refused by the caller");
            case MemberTable.Add a -> register(a.entry(), false);
            case MemberTable.Remove r -> unregister(r.entry());
            case MemberTable.FlushAt f -> {
                var unused = loop.schedule(() -> carry(table.flush(f.memberId(), loop.ticker().nanos())),
                        f.at() - loop.ticker().nanos());
            }
        }
    }

    /** This process's entry was published (again): the count the re-registration after a loss compares with. */
    void published() {
        publications++;
    }

    /** After a loss: re-registers every settled member but those registered since the last publication. */
    void reRegisterAll() {
        for (Accepted entry : table.settled()) {
            Long at = registeredAt.get(entry.memberId());
            if (at != null && at == publications) {
                continue; // registered after this publication (news queued behind it): its connections are new
            }
            register(entry, true);
        }
    }

    /**
     * One registration of a member: settled once, by its completion on the transport's thread or by
     * the loop replacing or removing it, whichever comes first (under its lock), so that a member
     * enters {@link #members()} only through its current registration.
     */
    private static final class Ticket {
        final String id;
        final long epoch;
        // guarded by this
        private boolean superseded;
        private boolean writable;
        private @Nullable List<CompletableFuture<Long>> waiting;

        Ticket(String id, long epoch) {
            this.id = id;
            this.epoch = epoch;
        }

        /** The transport's thread: the registration is in place; makes the member writable unless superseded. */
        void writable(Map<String, Long> registered) {
            List<CompletableFuture<Long>> due;
            synchronized (this) {
                if (superseded) {
                    return;
                }
                writable = true;
                registered.put(id, epoch);
                due = waiting;
                waiting = null;
            }
            if (due != null) {
                due.forEach(f -> f.complete(epoch));
            }
        }

        /** The loop: a later registration or a removal takes over. */
        synchronized void supersede() {
            superseded = true;
            waiting = null;
        }

        /** The loop: completes {@code f} once writable; false when superseded. */
        boolean whenWritable(CompletableFuture<Long> f) {
            synchronized (this) {
                if (superseded) {
                    return false;
                }
                if (!writable) {
                    List<CompletableFuture<Long>> w = waiting;
                    if (w == null) {
                        w = new ArrayList<>(2);
                        waiting = w;
                    }
                    w.add(f);
                    return true;
                }
            }
            f.complete(epoch);
            return true;
        }
    }

    /**
     * Completes {@code f} with {@code id}'s epoch as soon as its registration under way is in place
     * (at once when it is); false when none is under way. Loop only.
     */
    boolean whenWritable(String id, CompletableFuture<Long> f) {
        Ticket t = tickets.get(id);
        return t != null && t.whenWritable(f);
    }

    /** Registers {@code entry}'s member; {@code again}: a re-registration at the epoch it holds, after a loss. */
    private void register(Accepted entry, boolean again) {
        String id = entry.memberId();
        long e = entry.epoch();
        Ticket ticket = new Ticket(id, e);
        Ticket previous = tickets.put(id, ticket);
        if (previous != null) {
            previous.supersede();
        }
        // the transport tears the old registration down now: members() no longer lists the member
        Long held = registered.remove(id);
        if (held != null) {
            replacing.put(id, held);
        }
        registeredAt.put(id, publications);
        observer.registering(id);
        CompletableFuture<Void> f;
        try {
            f = transport.addPeerAsync(id, entry.descriptor());
        } catch (RuntimeException ex) {
            onRegistered(ticket, again, ex);
            return;
        }
        var unused = f.whenComplete((v, err) -> {
            if (err == null) {
                ticket.writable(registered);
            }
            loop.execute(() -> onRegistered(ticket, again, err));
        });
    }

    private void onRegistered(Ticket ticket, boolean again, @Nullable Throwable err) {
        String id = ticket.id;
        long e = ticket.epoch;
        Accepted applied = table.applied(id);
        if (tickets.get(id) != ticket || applied == null || applied.epoch() != e) {
            return; // superseded since: a later change of the member was applied
        }
        Throwable cause = unwrap(err);
        if (cause instanceof RegistrationSupersededException) {
            return; // a later registration of the member, or its removal, takes over
        }
        Long before = replacing.remove(id);
        if (cause == null) {
            registered.put(id, e);
            Long known = told.put(id, e);
            if (again && before != null && before == e) {
                signals.reRegistered(id, e);
            } else {
                // an update of a member the listeners heard added; else the first registration they hear
                // of, also one that superseded a first registration still in flight (writable, never told)
                signals.added(id, e, known != null);
            }
            observer.registered(id, e); // after the listeners heard of it
        } else {
            tickets.remove(id, ticket);
            ticket.supersede();
            told.remove(id);
            signals.registrationFailed(id, e, cause);
            if (before != null) {
                signals.removed(id, before);
            }
            observer.registrationFailed(id, e, cause);
        }
    }

    private void unregister(Accepted entry) {
        String id = entry.memberId();
        Long before = remove(id);
        if (before != null) {
            signals.removed(id, before);
        }
        observer.left(id);
    }

    /**
     * Removes {@code id} from the transport and forgets its registration: the epoch it was
     * registered with (or was being replaced from), or null when it was neither.
     */
    @Nullable Long remove(String id) {
        Ticket t = tickets.remove(id);
        if (t != null) {
            t.supersede(); // before registered is cleared: a completion still under way cannot put it back
        }
        try {
            transport.removePeer(id);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "membership '" + self + "' could not remove peer '" + id + "': " + e);
        }
        registeredAt.remove(id);
        told.remove(id);
        Long before = registered.remove(id);
        Long replaced = replacing.remove(id);
        return before != null ? before : replaced;
    }

    /** Forgets when {@code id}'s registration began (it was never registered after all). */
    void forget(String id) {
        registeredAt.remove(id);
    }

    private static @Nullable Throwable unwrap(@Nullable Throwable t) {
        Throwable c = t;
        while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
            c = c.getCause();
        }
        return c;
    }
}
