package io.blockxfer.directory;

import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Why {@link Membership#resolve(String)} could not make a member writable: its {@link #reason()},
 * the member, and for a refused entry the {@link Refusal} with its own reason.
 *
 * <p><b>Thread safety:</b> immutable.
 */
public final class MemberResolutionException extends DirectoryException {

    private static final long serialVersionUID = 1L;

    /** Why a resolution failed. */
    public enum Reason {
        /** The directory holds no entry under the member's key. */
        NO_SUCH_MEMBER,
        /** The member's entry was refused (see {@link #refusal()}): nothing of it reached the transport. */
        REFUSED,
        /** The member was not writable within the resolve timeout; it is not held. */
        TIMEOUT,
        /** The transport could not register the member (see the cause). */
        REGISTRATION_FAILED,
        /** The directory could not be read (see the cause). */
        UNAVAILABLE,
        /** The member was released, or left, before the resolution completed. */
        RELEASED,
        /** The membership was closed. */
        CLOSED
    }

    private final String memberId;
    private final Reason reason;
    private final transient @Nullable Refusal refusal;

    /**
     * A failed resolution of {@code memberId}.
     *
     * @param refusal the refusal, for {@link Reason#REFUSED}; null otherwise
     * @param cause the cause, or null
     */
    public MemberResolutionException(String memberId, Reason reason, String message, @Nullable Refusal refusal,
            @Nullable Throwable cause) {
        super(message, cause);
        this.memberId = Objects.requireNonNull(memberId, "memberId");
        this.reason = Objects.requireNonNull(reason, "reason");
        this.refusal = refusal;
    }

    /** The member whose resolution failed. */
    public String memberId() {
        return memberId;
    }

    /** Why. */
    public Reason reason() {
        return reason;
    }

    /** The refusal of the member's entry, for {@link Reason#REFUSED}. */
    public Optional<Refusal> refusal() {
        return Optional.ofNullable(refusal);
    }
}
