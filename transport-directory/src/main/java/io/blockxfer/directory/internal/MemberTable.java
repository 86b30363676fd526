package io.blockxfer.directory.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What the transport should hold for each member, given the entries the directory delivers: the
 * epoch check (an entry must be newer than any seen for its member, remembered after the member
 * left) and the coalescing of a flapping member. Pure state: it decides, and the caller carries
 * out each {@link Step} and schedules the flushes it asks for.
 *
 * <p><b>Coalescing.</b> A change of a member is applied at once when none was applied to it within
 * the last interval; otherwise it is held, and when the interval ends only the member's latest
 * state is applied, and only if it differs from what the transport holds. A delete is always held
 * for one interval first, so a member that comes straight back (a restart: goodbye, then a new
 * epoch) is re-added once instead of removed and added, and a delete followed within the interval
 * by a put of the same entry (same epoch, same bytes) changes nothing. A member therefore changes
 * in the transport at most once per interval, however fast it flaps; with an interval of zero
 * every change is applied at once.
 *
 * <p><b>Epochs.</b> A put whose epoch is below the highest seen for its member is stale; one of the
 * same epoch is accepted only as the very entry seen with that epoch (byte for byte, by a 64-bit
 * digest): a duplicate of the entry held or pending changes nothing, and its return after a delete
 * (the member restored its entry under its own lease, which {@link EntryCheck} has checked) is a
 * change like any other; other bytes under a known epoch are refused. The highest epochs (and
 * their entries' digests) of members that left are remembered for the last
 * {@value #REMEMBERED_LEFT} members to leave.
 *
 * <p><b>Thread safety:</b> not thread-safe; one thread (the membership's) owns it.
 */
public final class MemberTable {

    /** How many members that left keep their highest epoch remembered. */
    public static final int REMEMBERED_LEFT = 65_536;

    private final long intervalNanos;
    private final int rememberLeft;
    private final Map<String, Member> members = new HashMap<>();
    private final Set<String> left = new LinkedHashSet<>();

    /** What to do now. */
    public sealed interface Step permits Nothing, Add, Remove, FlushAt, Stale {
    }

    /** Nothing to do. */
    public record Nothing() implements Step {
    }

    /** Register (or re-register) the member with this entry. */
    public record Add(Accepted entry, boolean replaces) implements Step {
    }

    /** Remove the member registered with this entry. */
    public record Remove(Accepted entry) implements Step {
    }

    /** Call {@link #flush} for the member once the ticker reaches {@code at}. */
    public record FlushAt(String memberId, long at) implements Step {
    }

    /** Refuse the entry: its epoch is not newer than one seen. */
    public record Stale(String message) implements Step {
    }

    private static final Nothing NOTHING = new Nothing();

    private static final class Member {
        long highest;
        long highestDigest;
        @Nullable Accepted applied;
        boolean pending;
        @Nullable Accepted target;
        boolean held;
        long holdUntil;
        boolean flushScheduled;

        @Nullable Accepted current() {
            return pending ? target : applied;
        }
    }

    /**
     * A table that coalesces changes within {@code intervalNanos} (zero: none) and remembers the
     * epochs of the last {@code rememberLeft} members to leave.
     */
    public MemberTable(long intervalNanos, int rememberLeft) {
        this.intervalNanos = intervalNanos;
        this.rememberLeft = rememberLeft;
    }

    /** The directory holds {@code entry} for its member (checked but for its epoch) at {@code now}. */
    public Step put(Accepted entry, long now) {
        String id = entry.memberId();
        Member m = members.get(id);
        if (m == null) {
            m = new Member();
            members.put(id, m);
        }
        left.remove(id);
        if (entry.epoch() > m.highest) {
            m.highest = entry.epoch();
            m.highestDigest = entry.digest();
        } else if (entry.epoch() < m.highest) {
            return new Stale("entry of '" + id + "' has epoch " + entry.epoch() + ", older than epoch " + m.highest
                    + " seen before: a replayed or stale entry");
        } else if (entry.digest() == m.highestDigest) {
            if (Accepted.same(entry, m.current())) {
                return NOTHING; // the entry held already, delivered again
            }
        } else {
            return new Stale("entry of '" + id + "' has epoch " + entry.epoch() + ", seen before with other bytes:"
                    + " an entry of a known epoch must not change");
        }
        return change(id, m, entry, now);
    }

    /** The directory no longer holds an entry of {@code memberId}, as of {@code now}. */
    public Step delete(String memberId, long now) {
        Member m = members.get(memberId);
        if (m == null || m.current() == null) {
            return NOTHING;
        }
        return change(memberId, m, null, now);
    }

    /** The hold of {@code memberId} asked for by a {@link FlushAt} ends at {@code now}. */
    public Step flush(String memberId, long now) {
        Member m = members.get(memberId);
        if (m == null) {
            return NOTHING;
        }
        m.flushScheduled = false;
        if (!m.pending) {
            return NOTHING;
        }
        if (now - m.holdUntil < 0) {
            m.flushScheduled = true;
            return new FlushAt(memberId, m.holdUntil);
        }
        Accepted target = m.target;
        m.pending = false;
        m.target = null;
        if (Accepted.same(target, m.applied)) {
            m.held = false;
            return NOTHING;
        }
        return apply(memberId, m, target, now);
    }

    /**
     * This process stops following {@code memberId} (an on-demand member released): whatever is
     * held or applied for it is dropped at once, without a hold, and its highest epoch is
     * remembered as for a member that left, so that a replay of an older entry is still refused
     * when it is resolved again. A {@link Remove} when the transport holds it.
     */
    public Step release(String memberId) {
        Member m = members.get(memberId);
        if (m == null) {
            return NOTHING;
        }
        Accepted before = m.applied;
        m.applied = null;
        m.pending = false;
        m.target = null;
        m.held = false;
        remember(memberId);
        return before == null ? NOTHING : new Remove(before);
    }

    private void remember(String id) {
        left.add(id);
        if (left.size() > rememberLeft) {
            Iterator<String> oldest = left.iterator();
            String forgotten = oldest.next();
            oldest.remove();
            members.remove(forgotten);
        }
    }

    /** The entry the transport was last given for {@code memberId}; null when none. */
    public @Nullable Accepted applied(String memberId) {
        Member m = members.get(memberId);
        return m == null ? null : m.applied;
    }

    /**
     * The entries the transport was given and that no held change will replace: one per member
     * applied now, but for a member whose removal or newer entry waits for its interval to end.
     * Sorted by member id.
     */
    public List<Accepted> settled() {
        List<Accepted> out = new ArrayList<>();
        for (Member m : members.values()) {
            Accepted a = m.applied;
            if (a != null && (!m.pending || Accepted.same(a, m.target))) {
                out.add(a);
            }
        }
        out.sort(Comparator.comparing(Accepted::memberId));
        return out;
    }

    /** The highest epoch seen for {@code memberId}; 0 when none. */
    public long highestEpoch(String memberId) {
        Member m = members.get(memberId);
        return m == null ? 0 : m.highest;
    }

    private Step change(String id, Member m, @Nullable Accepted state, long now) {
        if (m.held && now - m.holdUntil < 0) {
            m.pending = true;
            m.target = state;
            if (!m.flushScheduled) {
                m.flushScheduled = true;
                return new FlushAt(id, m.holdUntil);
            }
            return NOTHING;
        }
        m.held = false;
        if (state == null && intervalNanos > 0) {
            m.pending = true;
            m.target = null;
            m.held = true;
            m.holdUntil = now + intervalNanos;
            m.flushScheduled = true;
            return new FlushAt(id, m.holdUntil);
        }
        m.pending = false;
        m.target = null;
        return apply(id, m, state, now);
    }

    private Step apply(String id, Member m, @Nullable Accepted state, long now) {
        Accepted before = m.applied;
        m.applied = state;
        if (intervalNanos > 0) {
            m.held = true;
            m.holdUntil = now + intervalNanos;
        }
        if (state != null) {
            return new Add(state, before != null);
        }
        remember(id);
        return new Remove(java.util.Objects.requireNonNull(before, "a removed member was applied"));
    }
}
