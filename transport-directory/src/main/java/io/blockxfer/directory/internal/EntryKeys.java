package io.blockxfer.directory.internal;

import java.util.HashMap;
import java.util.Map;

/**
 * Which keys hold each member's accepted entry, as the membership's watches last showed them, and
 * whether a key was seen through a followed scope (every member, or a group) or through a
 * resolution. A member is found under its own key and, with a group, under its group key; a
 * membership may watch both (its group followed, the member resolved before the group's watch
 * showed it). A delete, or a copy off the member's lease, ends a member only for the key it names,
 * and the member leaves when no key holds its entry any more: a delete seen through one watch never
 * removes a member held through another, and a key that never held the member's entry (another
 * group's key written by a stranger) changes nothing.
 *
 * <p><b>Thread safety:</b> not thread-safe; the membership's loop owns it.
 */
final class EntryKeys {

    /** A key holding a member's entry: seen through a followed scope, a resolution, or both. */
    private static final class Holder {
        boolean followed;
        boolean resolved;
    }

    private final Map<String, Map<String, Holder>> byMember = new HashMap<>();

    /** {@code key} holds an accepted entry of {@code id}, seen through a followed scope or a resolution. */
    void held(String id, String key, boolean followed) {
        Holder h = byMember.computeIfAbsent(id, k -> new HashMap<>()).computeIfAbsent(key, k -> new Holder());
        if (followed) {
            h.followed = true;
        } else {
            h.resolved = true;
        }
    }

    /**
     * {@code key} no longer holds an entry of {@code id} (it was deleted, or holds a copy off the
     * member's lease). Returns whether that ended the member: the key held its entry, and no other
     * key does.
     */
    boolean gone(String id, String key) {
        Map<String, Holder> keys = byMember.get(id);
        if (keys == null || keys.remove(key) == null) {
            return false; // the key never held the member's entry, or its end was seen already
        }
        if (!keys.isEmpty()) {
            return false;
        }
        byMember.remove(id);
        return true;
    }

    /** Whether a key seen through a followed scope holds {@code id}'s entry. */
    boolean followed(String id) {
        Map<String, Holder> keys = byMember.get(id);
        return keys != null && keys.values().stream().anyMatch(h -> h.followed);
    }

    /**
     * A resolution of {@code id} ended: the keys seen through it alone no longer count. Returns
     * whether a followed scope still holds the member.
     */
    boolean unresolve(String id) {
        Map<String, Holder> keys = byMember.get(id);
        if (keys == null) {
            return false;
        }
        keys.values().removeIf(h -> {
            h.resolved = false;
            return !h.followed;
        });
        if (keys.isEmpty()) {
            byMember.remove(id);
            return false;
        }
        return true;
    }

    /** The member left (removed from the transport): no key holds it any more. */
    void forget(String id) {
        byMember.remove(id);
    }
}
