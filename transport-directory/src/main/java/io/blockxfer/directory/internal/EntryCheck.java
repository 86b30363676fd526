package io.blockxfer.directory.internal;

import io.blockxfer.directory.DirectoryLimits;
import io.blockxfer.directory.DirectoryScope;
import io.blockxfer.directory.MalformedEntryException;
import io.blockxfer.directory.MemberEntry;
import io.blockxfer.directory.Refusal;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.MalformedPeerDescriptorException;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.UnauthenticatedPeerException;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Every check of a directory entry that needs no memory of earlier entries, in the order that
 * tells an outsider least: the key, the size (before any byte is read), the envelope's checksum,
 * format and, with a key ring, MAC; the member id inside against the key's; the descriptor inside,
 * its own signature under the ring, and its compatibility with the transport (backend, block
 * length, fingerprint: the checks {@code addPeer} makes); last, the lease the entry was published
 * under against the lease the directory reports for the key ({@link Refusal.Reason#WRONG_LEASE}
 * when they differ or the key has none: a copy written back by someone else, which the member's
 * own, live lease does not hold). The epoch is checked by {@link MemberTable}, which remembers.
 *
 * <p><b>Thread safety:</b> immutable.
 */
public final class EntryCheck {

    /** The outcome: an accepted entry, or a refusal. */
    public sealed interface Result permits Ok, Refused {
    }

    /** Passed. */
    public record Ok(Accepted entry) implements Result {
    }

    /** Refused, with the refusal to report. */
    public record Refused(Refusal refusal) implements Result {
    }

    private final String prefix;
    private final @Nullable DeploymentKeyRing ring;
    private final String backend;
    private final long blockLength;
    private final String fingerprint;

    public EntryCheck(String prefix, @Nullable DeploymentKeyRing ring, String backend, long blockLength,
            String fingerprint) {
        this.prefix = prefix;
        this.ring = ring;
        this.backend = backend;
        this.blockLength = blockLength;
        this.fingerprint = fingerprint;
    }

    /**
     * The member id {@code key} names, as a member key ({@code prefix + id}) or a group key
     * ({@code prefix + "~group/" + group + "/" + id}, see {@link DirectoryScope}); empty when it
     * names none (a delete of such a key concerns no member).
     */
    public Optional<String> memberId(String key) {
        Optional<String> direct = DirectoryLimits.memberId(prefix, key);
        if (direct.isPresent()) {
            return direct;
        }
        String group = group(key);
        return group == null ? Optional.empty()
                : DirectoryLimits.memberId(prefix + DirectoryScope.GROUP_SEGMENT + group + "/", key);
    }

    /** The group a group key names, or null when {@code key} is not a well-formed group key. */
    public @Nullable String group(String key) {
        String start = prefix + DirectoryScope.GROUP_SEGMENT;
        if (!key.startsWith(start)) {
            return null;
        }
        int slash = key.indexOf('/', start.length());
        if (slash < 0) {
            return null;
        }
        String group = key.substring(start.length(), slash);
        return DirectoryLimits.isValidGroup(group)
                && DirectoryLimits.isValidMemberId(key.substring(slash + 1)) ? group : null;
    }

    /**
     * Checks the value {@code value} found under {@code key} at {@code revision}, the key attached
     * to {@code lease} (0: none).
     */
    public Result check(String key, byte[] value, long revision, long lease) {
        String shown = printable(key);
        Optional<String> named = memberId(key);
        if (named.isEmpty()) {
            return refuse(shown, "", Refusal.Reason.BAD_KEY, "key '" + shown + "' is not a member id directly under "
                    + prefix + " nor a group key " + prefix + DirectoryScope.GROUP_SEGMENT + "<group>/<member id>",
                    revision, 0);
        }
        String id = named.get();
        if (value.length > DirectoryLimits.MAX_VALUE_BYTES) {
            return refuse(shown, id, Refusal.Reason.OVERSIZED, "entry of '" + id + "' has " + value.length
                    + " bytes, above the limit of " + DirectoryLimits.MAX_VALUE_BYTES + "; not read", revision, 0);
        }
        MemberEntry entry;
        try {
            entry = MemberEntry.decode(value, ring);
        } catch (MalformedEntryException e) {
            return refuse(shown, id, Refusal.Reason.MALFORMED, "entry of '" + id + "': " + e.getMessage(), revision, 0);
        } catch (UnauthenticatedPeerException e) {
            return refuse(shown, id, reason(e), "entry of '" + id + "': " + e.getMessage(), revision, 0);
        }
        long epoch = entry.epoch();
        if (!entry.memberId().equals(id)) {
            return refuse(shown, id, Refusal.Reason.ID_MISMATCH, "entry under '" + id + "' is member '"
                    + entry.memberId() + "'s", revision, epoch);
        }
        String keyGroup = group(key);
        if (keyGroup != null && !entry.group().equals(Optional.of(keyGroup))) {
            return refuse(shown, id, Refusal.Reason.ID_MISMATCH, "entry of '" + id + "' under the key of group '"
                    + keyGroup + "' names " + entry.group().map(g -> "group '" + g + "'").orElse("no group")
                    + ": a member is found only under its own group's key", revision, epoch);
        }
        PeerDescriptor descriptor;
        try {
            descriptor = entry.peerDescriptor();
        } catch (MalformedPeerDescriptorException e) {
            return refuse(shown, id, Refusal.Reason.MALFORMED, "descriptor of '" + id + "': " + e.getMessage(),
                    revision, epoch);
        }
        if (ring != null) {
            try {
                ring.verify(descriptor);
            } catch (UnauthenticatedPeerException e) {
                return refuse(shown, id, reason(e), "descriptor of '" + id + "' in a signed entry: " + e.getMessage(),
                        revision, epoch);
            }
        }
        String incompatible = incompatibility(id, descriptor);
        if (incompatible != null) {
            return refuse(shown, id, Refusal.Reason.INCOMPATIBLE, incompatible, revision, epoch);
        }
        String offLease = leaseMismatch(id, entry, lease);
        if (offLease != null) {
            return refuse(shown, id, Refusal.Reason.WRONG_LEASE, offLease, revision, epoch);
        }
        return new Ok(new Accepted(id, epoch, descriptor, value, revision));
    }

    private static @Nullable String leaseMismatch(String id, MemberEntry entry, long lease) {
        if (entry.lease() == lease && lease != 0) {
            return null;
        }
        String published = entry.lease() == 0 ? "under no lease" : "under lease " + Long.toHexString(entry.lease());
        String attached = lease == 0 ? "to no lease" : "to lease " + Long.toHexString(lease);
        return "entry of '" + id + "' (epoch " + entry.epoch() + ") was published " + published + ", but its key is"
                + " attached " + attached + ": a copy written back by someone else (a replay of the member's entry, or"
                + " a put by another tool); a member is live only while its entry sits on its own lease";
    }

    private @Nullable String incompatibility(String id, PeerDescriptor d) {
        if (!d.backend().equals(backend)) {
            return "member '" + id + "' uses backend '" + d.backend() + "', this transport uses '" + backend + "'";
        }
        if (d.blockLength() != blockLength) {
            return "member '" + id + "' has block length " + d.blockLength() + ", this transport " + blockLength;
        }
        if (!d.fingerprint().equals(fingerprint)) {
            return "member '" + id + "' has config fingerprint '" + d.fingerprint() + "', this transport '"
                    + fingerprint + "'";
        }
        return null;
    }

    private static Refusal.Reason reason(UnauthenticatedPeerException e) {
        return switch (e.reason()) {
            case UNSIGNED -> Refusal.Reason.UNSIGNED;
            case UNKNOWN_KEY -> Refusal.Reason.UNKNOWN_KEY;
            case CHANGED_AFTER_SIGNING -> Refusal.Reason.BAD_MAC;
        };
    }

    private static Refused refuse(String key, String id, Refusal.Reason reason, String message, long revision,
            long epoch) {
        return new Refused(new Refusal(key, id, reason, message, revision, epoch));
    }

    /** {@code key} with characters outside printable ASCII replaced, cut to 200 chars. */
    static String printable(String key) {
        StringBuilder b = new StringBuilder(Math.min(key.length(), 200));
        for (int i = 0; i < key.length() && i < 200; i++) {
            char c = key.charAt(i);
            b.append(c >= 0x20 && c < 0x7f ? c : '?');
        }
        return key.length() > 200 ? b + "..." : b.toString();
    }
}
