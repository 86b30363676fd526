package io.blockxfer.holds;

import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A transfer under a {@link Lease} that the lease did not cover: refused before it started, or
 * reported failed although its bytes moved, because the lease had ended (expired by the holder's
 * own deadline, revoked or ended by the owner, released, closed) or, for a write, had too little
 * time left to be sure the write ends before the owner's hold could. The bytes such a read brought
 * must not be used.
 *
 * <p><b>Thread safety:</b> immutable.
 */
public final class LeaseException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String owner;
    private final long holdId;
    private final Lease.@Nullable EndReason reason;

    LeaseException(Lease lease, Lease.@Nullable EndReason reason, String message) {
        super("lease on hold " + Long.toHexString(lease.holdId()) + " of '" + lease.owner() + "': " + message);
        this.owner = lease.owner();
        this.holdId = lease.holdId();
        this.reason = reason;
    }

    /** The owner of the held blocks. */
    public String owner() {
        return owner;
    }

    /** The hold's id. */
    public long holdId() {
        return holdId;
    }

    /** Why the lease ended; empty when it had not ended but could not cover the transfer. */
    public Optional<Lease.EndReason> endReason() {
        return Optional.ofNullable(reason);
    }
}
