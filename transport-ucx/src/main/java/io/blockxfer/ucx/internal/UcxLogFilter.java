package io.blockxfer.ucx.internal;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Keeps JUCX's line per failed request out of the log. JUCX 1.18 logs
 * {@code UCX ERROR JUCX: request error: <status>} through UCX's logger for every request that ends
 * in error and has a callback: one line per transfer in flight when a peer dies or is removed,
 * tens of thousands a second under churn. The backend logs a peer's failure itself, once per
 * change of state. A UCX log handler ({@code ucs_log_push_handler}, which UCX calls before its own
 * printer; installed by {@link UcxLibrary}, which owns the backend's native handles) drops exactly
 * that message and lets every other one through.
 *
 * <p><b>Thread safety:</b> thread-safe; installed once per process, by {@link UcxLibrary}; UCX may
 * call the handler from any thread.
 */
final class UcxLogFilter {

    /** {@code UCS_LOG_FUNC_RC_STOP}: the message goes no further. */
    static final int STOP = 0;
    /** {@code UCS_LOG_FUNC_RC_CONTINUE}: the next handler (UCX's printer) gets it. */
    static final int CONTINUE = 1;
    /** The format of JUCX's message ({@code call_on_error} in {@code jucx_common_def.cc}). */
    private static final byte[] REQUEST_ERROR = "JUCX: request error".getBytes(StandardCharsets.US_ASCII);

    private static final AtomicLong DROPPED = new AtomicLong();
    private static volatile boolean installed;

    private UcxLogFilter() {
    }

    /** Notes that {@link UcxLibrary} installed {@link #filter} as UCX's first log handler. */
    static void installed(boolean value) {
        installed = value;
    }

    /** Whether the handler is installed. */
    static boolean installed() {
        return installed;
    }

    /** How many of JUCX's request-error lines were dropped in this process. */
    static long dropped() {
        return DROPPED.get();
    }

    /**
     * The handler, {@code ucs_log_func_t}: UCX calls it (through the upcall stub {@link UcxLibrary}
     * made) with the message's format string before printing it.
     */
    @SuppressWarnings("restricted") // reads a C string UCX passes
    static int filter(MemorySegment file, int line, MemorySegment function, int level,
            MemorySegment component, MemorySegment format, MemorySegment args) {
        try {
            if (format.address() == 0) {
                return CONTINUE;
            }
            MemorySegment text = format.reinterpret(REQUEST_ERROR.length);
            for (int i = 0; i < REQUEST_ERROR.length; i++) {
                // stops at the first difference, so never reads past a shorter string's NUL
                if (text.get(JAVA_BYTE, i) != REQUEST_ERROR[i]) {
                    return CONTINUE;
                }
            }
            DROPPED.incrementAndGet();
            return STOP;
        } catch (Throwable t) {
            // an exception must never leave an upcall
            return CONTINUE;
        }
    }
}
