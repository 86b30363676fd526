package io.blockxfer.directory;

/**
 * Told what a {@link Membership} does: its own entry's publications and losses, the members it
 * adds, updates, re-registers and removes, the entries it refuses, and the watch's losses and
 * returns of the directory. Every method has an empty default. {@code transport-micrometer}'s
 * {@code MicrometerMembershipListener} turns these calls into meters; JFR events are recorded
 * besides, whatever the listener.
 *
 * <p>Calls come on the membership's own thread, one at a time, in the order things happened. A
 * listener should be quick: the membership waits for it. One that throws is logged and the
 * membership goes on; the next call still comes.
 *
 * <p><b>Thread safety:</b> called on one thread at a time; implementations need not be thread-safe
 * unless they are shared or read from elsewhere.
 */
public interface MembershipListener {

    /** The membership started: the first call. */
    default void membershipStarted(String memberId, String prefix) {
    }

    /** This process's entry was published with {@code epoch}: at the start, and after each loss. */
    default void published(String memberId, long epoch) {
    }

    /**
     * This process's entry at {@code epoch} is gone with its lease: the lease was lost (expired
     * while the process was cut off or paused, or revoked), or the directory cannot restore the
     * entry. The membership publishes again with a new epoch ({@link #published}) and re-registers
     * its members ({@link #memberReRegistered}).
     */
    default void leaseLost(String memberId, long epoch, String reason) {
    }

    /**
     * This process's entry at {@code epoch} was overwritten or deleted by someone else while its
     * lease lives, and the membership wrote it again under that lease
     * ({@link Publication#restore()}): same epoch, same bytes, nothing torn down, no member
     * re-registered. Restores come at most {@code Membership.MAX_RESTORES_PER_SECOND} a second
     * however fast the key is overwritten.
     *
     * @param reason what had happened to the entry
     */
    default void entryRestored(String memberId, long epoch, String reason) {
    }

    /**
     * Another process published a valid entry of the newer epoch {@code newerEpoch} under this
     * process's member id: this membership stopped publishing its own entry of {@code epoch} for
     * good. Its lease is revoked, and it neither restores nor publishes its entry again (a process
     * started later under the same id takes it over, as on a restart); it goes on following its
     * members. Also reported as a {@link Refusal.Reason#MEMBER_ID_IN_USE} refusal.
     */
    default void entrySuperseded(String memberId, long epoch, long newerEpoch) {
    }

    /**
     * Publishing this process's entry failed; the membership tries again, with back-off and at once
     * when the directory returns.
     */
    default void publishFailed(String memberId, Throwable cause) {
    }

    /** A new member's registration completed: transfers to it can start. */
    default void memberAdded(String memberId, long epoch) {
    }

    /** A member's registration was replaced by the one of its new epoch. */
    default void memberUpdated(String memberId, long epoch) {
    }

    /**
     * A member's registration was replaced by a fresh one at the epoch it already had, because
     * this process's own entry had been lost ({@link #leaseLost}): the other members removed this
     * process meanwhile and tore down their side of its connections, while their own entries did
     * not change. After each such loss, the publication that follows re-registers every member
     * held then, and this is called once for each whose re-registration completed (one whose
     * re-registration failed is reported by {@link #registrationFailed} and
     * {@link #memberRemoved}; one that left or changed meanwhile gets that change instead).
     */
    default void memberReRegistered(String memberId, long epoch) {
    }

    /**
     * A member left: its entry was deleted (a goodbye, an expired lease), or its re-registration
     * failed. Its transfers still in flight are reported failed by the transport.
     *
     * @param epoch the epoch it was registered with
     */
    default void memberRemoved(String memberId, long epoch) {
    }

    /**
     * A member held through {@link Membership#resolve(String)} was released: by
     * {@link Membership#release(String)}, or because the held set passed its limit and this member
     * had been idle longest. It is removed from the transport (unless a followed group holds it)
     * and no longer followed; resolving it again works.
     *
     * @param epoch the epoch it was registered with, or 0 when it was not registered
     * @param why why it was released
     */
    default void memberReleased(String memberId, long epoch, String why) {
    }

    /**
     * Registering a member failed in the transport (its metadata was unusable, or the native
     * connection failed). It is not a member; a later entry of it is tried again.
     */
    default void registrationFailed(String memberId, long epoch, Throwable cause) {
    }

    /** An entry was refused; nothing of it reached the transport. */
    default void refused(Refusal refusal) {
    }

    /** The watch lost the directory; peers stay as they are while it is away. */
    default void disconnected(String reason) {
    }

    /** The watch is back; what changed meanwhile follows (see {@link DirectoryListener#reconnected}). */
    default void reconnected(long revision, boolean resync) {
    }
}
