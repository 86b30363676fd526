package io.blockxfer.nixl.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

/**
 * What the NIXL engine sends: a transfer's message rides on the optional arguments of
 * {@code make_xfer_req} (NIXL copies it into the request, which then sends it once the transfer
 * completed; the post passes no arguments, which keeps it), and a message without a transfer is one
 * {@code gen_notif}. Argument objects are pooled: made once with {@code has_notif} set, then only
 * their message changes, so a notified transfer costs one more downcall than a plain one.
 *
 * <p><b>Thread safety:</b> thread-safe; an argument object is used by one thread between
 * {@link #withMessage} and {@link #give}.
 */
final class OutboundMessages {

    /** Argument objects kept for reuse, at most. */
    private static final int POOLED = 64;

    private final MemorySegment agent;
    private final String owner;
    private final ArrayDeque<MemorySegment> free = new ArrayDeque<>();
    private boolean closed; // guarded by free

    /**
     * @param agent the local agent that sends
     * @param owner how the engine names itself in messages
     */
    OutboundMessages(MemorySegment agent, String owner) {
        this.agent = agent;
        this.owner = owner;
    }

    /**
     * Optional arguments that carry {@code message} ({@code length} bytes), for one
     * {@code make_xfer_req}; hand them back with {@link #give}.
     *
     * @throws NixlException if NIXL refuses
     * @throws IllegalStateException once closed
     */
    MemorySegment withMessage(MemorySegment message, long length) {
        MemorySegment args;
        synchronized (free) {
            if (closed) {
                throw new IllegalStateException(owner + " is closed");
            }
            args = free.pollFirst();
        }
        if (args == null) {
            args = create();
        }
        int status = NixlNative.optArgsSetNotifMsg(args, message, length);
        if (status != NixlStatus.SUCCESS) {
            give(args);
            throw new NixlException("nixl_capi_opt_args_set_notif_msg(" + length + " bytes)", status);
        }
        return args;
    }

    private MemorySegment create() {
        MemorySegment out = Arena.ofAuto().allocate(ADDRESS);
        NixlStatus.check("nixl_capi_create_opt_args", NixlNative.createOptArgs(out));
        MemorySegment args = out.get(ADDRESS, 0);
        int status = NixlNative.optArgsSetHasNotif(args, true);
        if (status != NixlStatus.SUCCESS) {
            NixlNative.destroyOptArgs(args);
            throw new NixlException("nixl_capi_opt_args_set_has_notif", status);
        }
        return args;
    }

    /** Takes back arguments from {@link #withMessage}. */
    void give(MemorySegment args) {
        synchronized (free) {
            if (!closed && free.size() < POOLED) {
                free.addFirst(args);
                return;
            }
        }
        NixlNative.destroyOptArgs(args);
    }

    /**
     * {@code gen_notif}: {@code message} to the loaded remote agent {@code remote}, without a
     * transfer. UCX sends it without waiting for it to arrive.
     *
     * @throws NixlException with NIXL's status if it refuses (the agent is not loaded, its
     *     connection failed)
     */
    void send(String remote, byte[] message) {
        MemorySegment data = NixlScratch.get().message(message);
        try (Arena call = Arena.ofConfined()) {
            int status = NixlNative.genNotif(agent, call.allocateFrom(remote), data, message.length,
                    MemorySegment.NULL);
            if (status != NixlStatus.SUCCESS) {
                throw new NixlException("nixl_capi_gen_notif to NIXL agent '" + remote + "' (" + message.length
                        + " bytes)", status);
            }
        }
    }

    /** Frees the pooled arguments; arguments handed back later are freed at once. Idempotent. */
    void close() {
        synchronized (free) {
            closed = true;
            for (MemorySegment args : free) {
                NixlNative.destroyOptArgs(args);
            }
            free.clear();
        }
    }
}
