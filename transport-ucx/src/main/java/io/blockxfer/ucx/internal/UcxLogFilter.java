package io.blockxfer.ucx.internal;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

/**
 * UCX's log, in the JVM's. UCX prints its messages itself, on the process's standard output,
 * whatever the application's logging says; a UCX log handler ({@code ucs_log_push_handler}, which
 * UCX calls before its own printer; installed by {@link UcxLibrary}, which owns the backend's native
 * handles) takes every message instead: formatted with libc's {@code vsnprintf}, it goes to the
 * {@link System.Logger} {@value #LOGGER} at the matching level (UCX's errors as
 * {@code ERROR}, warnings as {@code WARNING}, diagnostics and info as {@code INFO}, debug as
 * {@code DEBUG}, trace as {@code TRACE}), where the application's logging configuration decides
 * whether and where it is printed. Which messages UCX produces at all is still
 * {@code UCX_LOG_LEVEL}'s choice (UCX's default: warnings and errors).
 *
 * <p>One message goes nowhere: JUCX 1.18 logs {@code UCX ERROR JUCX: request error: <status>} for
 * every request that ends in error and has a callback, one line per transfer in flight when a peer
 * dies or is removed, tens of thousands a second under churn. The backend logs a peer's failure
 * itself, once per change of state, so that message is dropped.
 *
 * <p><b>Thread safety:</b> thread-safe; installed once per process, by {@link UcxLibrary}; UCX may
 * call the handler from any thread.
 */
final class UcxLogFilter {

    /** {@code UCS_LOG_FUNC_RC_STOP}: the message goes no further. */
    static final int STOP = 0;
    /** {@code UCS_LOG_FUNC_RC_CONTINUE}: the next handler (UCX's printer) gets it. */
    static final int CONTINUE = 1;
    /** The logger UCX's messages go to. */
    static final String LOGGER = "org.openucx.ucx";
    /** The format of JUCX's message ({@code call_on_error} in {@code jucx_common_def.cc}). */
    private static final byte[] REQUEST_ERROR = "JUCX: request error".getBytes(StandardCharsets.US_ASCII);

    private static final System.Logger UCX = System.getLogger(LOGGER);
    private static final AtomicLong DROPPED = new AtomicLong();
    private static final AtomicLong FORWARDED = new AtomicLong();
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

    /** How many of UCX's messages went to the {@value #LOGGER} logger in this process. */
    static long forwarded() {
        return FORWARDED.get();
    }

    /** The {@link System.Logger.Level} of a UCX level ({@code ucs_log_level_t}: 0 fatal ... 5 debug, 6+ trace). */
    static System.Logger.Level level(int ucxLevel) {
        return switch (ucxLevel) {
            case 0, 1 -> System.Logger.Level.ERROR;
            case 2 -> System.Logger.Level.WARNING;
            case 3, 4 -> System.Logger.Level.INFO;
            case 5 -> System.Logger.Level.DEBUG;
            default -> System.Logger.Level.TRACE;
        };
    }

    /**
     * The handler, {@code ucs_log_func_t}: UCX calls it (through the upcall stub {@link UcxLibrary}
     * made) with the message's format string and arguments before printing it; a fresh
     * {@code va_list} per handler, so formatting it here leaves nothing behind for another.
     */
    @SuppressWarnings("restricted") // reads a C string UCX passes
    static int filter(MemorySegment file, int line, MemorySegment function, int level,
            MemorySegment component, MemorySegment format, MemorySegment args) {
        try {
            if (format.address() == 0) {
                return CONTINUE;
            }
            if (isRequestError(format)) {
                DROPPED.incrementAndGet();
                return STOP;
            }
            System.Logger.Level to = level(level);
            if (!UCX.isLoggable(to)) {
                return STOP;
            }
            String message = UcxLibrary.format(format, args);
            if (message == null) {
                return CONTINUE; // no vsnprintf here: UCX prints it itself
            }
            FORWARDED.incrementAndGet();
            UCX.log(to, message.strip() + " [" + where(file, line) + "]");
            return STOP;
        } catch (Throwable t) {
            // an exception must never leave an upcall
            return CONTINUE;
        }
    }

    @SuppressWarnings("restricted") // reads a C string UCX passes
    private static boolean isRequestError(MemorySegment format) {
        MemorySegment text = format.reinterpret(REQUEST_ERROR.length);
        for (int i = 0; i < REQUEST_ERROR.length; i++) {
            // stops at the first difference, so never reads past a shorter string's NUL
            if (text.get(JAVA_BYTE, i) != REQUEST_ERROR[i]) {
                return false;
            }
        }
        return true;
    }

    /** {@code file:line} of UCX's source, the file's name only. */
    @SuppressWarnings("restricted") // reads a C string UCX passes
    private static String where(MemorySegment file, int line) {
        if (file.address() == 0) {
            return "?:" + line;
        }
        String path = file.reinterpret(4096).getString(0, StandardCharsets.US_ASCII);
        return path.substring(path.lastIndexOf('/') + 1) + ":" + line;
    }
}
