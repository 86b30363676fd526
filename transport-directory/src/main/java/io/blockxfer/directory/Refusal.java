package io.blockxfer.directory;

import java.util.Objects;

/**
 * A directory entry a {@link Membership} refused: nothing of it reached the transport. The
 * member's earlier registration, if any, stays as it was: a refused entry neither adds nor updates
 * a peer, and removes one only when it is the member's own entry off its lease
 * ({@link Reason#WRONG_LEASE}): the key then no longer holds a live entry of the member, as after a
 * delete.
 *
 * @param key the key the entry was found under (printable characters only; others replaced)
 * @param memberId the member id the key names, or {@code ""} when it names none
 * @param reason why it was refused
 * @param message what was wrong, naming the member and the values that did not match
 * @param revision the revision of the entry
 * @param epoch the entry's epoch, or 0 when it could not be read
 */
public record Refusal(String key, String memberId, Reason reason, String message, long revision, long epoch) {

    /** Why an entry was refused. <b>Thread safety:</b> an enum; immutable. */
    public enum Reason {
        /** Larger than {@link DirectoryLimits#MAX_VALUE_BYTES}; refused before anything was read. */
        OVERSIZED,
        /** Not a well-formed entry, or the descriptor inside is malformed. */
        MALFORMED,
        /** The key lies outside the deployment's prefix, or names no well-formed member id. */
        BAD_KEY,
        /** The entry, or the descriptor inside, is unsigned, and the membership has a key ring. */
        UNSIGNED,
        /** Signed with a key id that is not in the key ring (an unknown or retired key). */
        UNKNOWN_KEY,
        /** Its MAC does not match its bytes: changed after signing, or signed with another key under the same id. */
        BAD_MAC,
        /** The member id inside differs from the one its key names. */
        ID_MISMATCH,
        /**
         * Its epoch is not newer than one already seen for the member (a replay or a stale write),
         * or the same epoch with other bytes.
         */
        STALE_EPOCH,
        /**
         * The key is not attached to the lease the entry was published under: a copy written back
         * by someone else, without a lease or under another one (a replay of a live or departed
         * member's entry, or a put by another tool). A member is live only while its entry sits
         * on its own lease, so such an entry removes the member, as a delete would.
         */
        WRONG_LEASE,
        /** Another backend, block length or config fingerprint than the transport's. */
        INCOMPATIBLE,
        /** A valid entry of another process under this membership's own member id. */
        MEMBER_ID_IN_USE
    }

    /** Checks the fields. */
    public Refusal {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(memberId, "memberId");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(message, "message");
    }
}
