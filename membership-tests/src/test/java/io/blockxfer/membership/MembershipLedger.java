package io.blockxfer.membership;

import io.blockxfer.membership.MemberProcess.Event;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Replays one member's events and says whether each was applied in a possible order, none twice.
 * Its peers ({@code ADDED}/{@code UPDATED}/{@code REMOVED}): a member is added only while absent
 * and with an epoch above every epoch seen for it, updated only while present and to a higher
 * epoch, removed only while present and with the epoch it holds, re-registered
 * ({@code REREGISTERED}) only while present at that epoch, after a loss of its own entry, and at
 * most once per member and loss. Its own entry
 * ({@code PUBLISHED}/{@code LEASE_LOST}): published only while it has no live entry and with an
 * epoch above every earlier one, lost only while live and with the epoch it was published at (a
 * loss is reported once).
 *
 * @param held the members held at the end, with their epochs
 * @param problems every event that broke the order, with the reason; empty when none did
 *
 * <p><b>Thread safety:</b> immutable once made.
 */
record MembershipLedger(Map<String, Long> held, List<String> problems) {

    /** Replays {@code events}. */
    static MembershipLedger of(List<Event> events) {
        Map<String, Long> held = new TreeMap<>();
        Map<String, Long> highest = new TreeMap<>();
        List<String> problems = new ArrayList<>();
        long live = 0; // the epoch of this member's live entry, 0 when it has none
        long published = 0; // the highest epoch it published
        int losses = 0; // how many times its own entry was lost
        Map<String, Integer> reRegisteredAt = new TreeMap<>(); // member: the loss it was last re-registered after
        for (Event e : events) {
            String m = e.member();
            Long now = held.get(m);
            long top = highest.getOrDefault(m, 0L);
            switch (e.kind()) {
                case "ADDED" -> {
                    if (now != null) {
                        problems.add(e + ": added while held at epoch " + now);
                    } else if (e.epoch() <= top) {
                        problems.add(e + ": added again at an epoch not above " + top);
                    }
                    held.put(m, e.epoch());
                    highest.put(m, Math.max(top, e.epoch()));
                }
                case "UPDATED" -> {
                    if (now == null) {
                        problems.add(e + ": updated while not held");
                    } else if (e.epoch() <= now) {
                        problems.add(e + ": updated to an epoch not above " + now);
                    }
                    held.put(m, e.epoch());
                    highest.put(m, Math.max(top, e.epoch()));
                }
                case "REREGISTERED" -> {
                    if (now == null) {
                        problems.add(e + ": re-registered while not held");
                    } else if (e.epoch() != now) {
                        problems.add(e + ": re-registered with epoch " + e.epoch() + " while held at " + now);
                    } else if (losses == 0) {
                        problems.add(e + ": re-registered while its own entry was never lost");
                    } else if (reRegisteredAt.getOrDefault(m, 0) == losses) {
                        problems.add(e + ": re-registered twice after one loss of its own entry");
                    }
                    reRegisteredAt.put(m, losses);
                }
                case "REMOVED" -> {
                    if (now == null) {
                        problems.add(e + ": removed while not held");
                    } else if (e.epoch() != now) {
                        problems.add(e + ": removed with epoch " + e.epoch() + " while held at " + now);
                    }
                    held.remove(m);
                }
                case "PUBLISHED" -> {
                    if (live != 0) {
                        problems.add(e + ": published while its entry of epoch " + live + " was live");
                    } else if (e.epoch() <= published) {
                        problems.add(e + ": published at an epoch not above " + published);
                    }
                    live = e.epoch();
                    published = Math.max(published, e.epoch());
                }
                case "LEASE_LOST" -> {
                    if (live == 0) {
                        problems.add(e + ": lost while it had no live entry (reported twice?)");
                    } else if (e.epoch() != live) {
                        problems.add(e + ": lost epoch " + e.epoch() + " while its live entry was " + live);
                    }
                    live = 0;
                    losses++;
                }
                default -> {
                    // neither a change of the transport's peers nor of this member's own entry
                }
            }
        }
        return new MembershipLedger(Map.copyOf(held), List.copyOf(problems));
    }

    /** How many events of {@code kind} about {@code member} are in {@code events}. */
    static long count(List<Event> events, String kind, String member) {
        return events.stream().filter(e -> e.is(kind, member)).count();
    }

    /** The events in {@code events} that change the transport's peers or this member's own entry. */
    static List<Event> changes(List<Event> events) {
        return events.stream().filter(e -> switch (e.kind()) {
            case "ADDED", "UPDATED", "REREGISTERED", "REMOVED", "REGISTRATION_FAILED", "LEASE_LOST", "PUBLISHED",
                    "PUBLISH_FAILED", "START_FAILED", "VIOLATION", "MISMATCH" -> true;
            default -> false;
        }).toList();
    }
}
