package io.blockxfer.transport;

/**
 * A backend-allocated region ({@link RegionSpec#allocate}) that this host cannot hold, refused
 * before anything is mapped, instead of letting the allocation exhaust the machine (the kernel's
 * out-of-memory killer) or fill {@code /dev/shm}. Every backend refuses such a region with it. The
 * message names the size asked for and what the host has; {@link #requestedBytes()} and
 * {@link #availableBytes()} give both as numbers.
 *
 * <p><b>Thread safety:</b> immutable after construction, like any exception.
 */
public class InsufficientMemoryException extends TransportException {
    private static final long serialVersionUID = 1L;

    private final long requestedBytes;
    private final long availableBytes;

    /**
     * An exception for a region of {@code requestedBytes}.
     *
     * @param message names the size and what is available
     * @param requestedBytes the size of the region asked for
     * @param availableBytes what the host has for it, by the limit that refused it
     */
    public InsufficientMemoryException(String message, long requestedBytes, long availableBytes) {
        super(message);
        this.requestedBytes = requestedBytes;
        this.availableBytes = availableBytes;
    }

    /** The size of the region asked for, in bytes. */
    public long requestedBytes() {
        return requestedBytes;
    }

    /**
     * What the host has for the region, in bytes, by the limit that refused it (memory available
     * plus swap free, the commit limit left, the cgroup's {@code memory.max} left, or a backend's
     * own limit such as the room in {@code /dev/shm}), before any reserve is kept back.
     */
    public long availableBytes() {
        return availableBytes;
    }
}
