package io.blockxfer.ucx.internal;

import org.openucx.jucx.UcxException;

/**
 * Translates UCS status codes ({@code ucs_status_t} of UCX 1.18) into names and messages, and
 * classifies them. The one place that knows UCX's error numbers.
 *
 * <p><b>Thread safety:</b> stateless.
 */
public final class UcsStatus {

    /** {@code UCS_OK}. */
    public static final int OK = 0;
    /** {@code UCS_INPROGRESS}. */
    public static final int IN_PROGRESS = 1;
    /** {@code UCS_ERR_BUSY}: what {@code ucp_worker_arm} returns while the worker has events to progress. */
    public static final int BUSY = -15;
    /** {@code UCS_ERR_CANCELED}: what a force-closed endpoint's requests end with. */
    public static final int CANCELED = -16;
    /** {@code UCS_ERR_CONNECTION_RESET}: what a dead or departed peer shows up as. */
    public static final int CONNECTION_RESET = -25;

    private static final String[] NAMES = {
        "UCS_OK", "UCS_ERR_NO_MESSAGE", "UCS_ERR_NO_RESOURCE", "UCS_ERR_IO_ERROR", "UCS_ERR_NO_MEMORY",
        "UCS_ERR_INVALID_PARAM", "UCS_ERR_UNREACHABLE", "UCS_ERR_INVALID_ADDR", "UCS_ERR_NOT_IMPLEMENTED",
        "UCS_ERR_MESSAGE_TRUNCATED", "UCS_ERR_NO_PROGRESS", "UCS_ERR_BUFFER_TOO_SMALL", "UCS_ERR_NO_ELEM",
        "UCS_ERR_SOME_CONNECTS_FAILED", "UCS_ERR_NO_DEVICE", "UCS_ERR_BUSY", "UCS_ERR_CANCELED",
        "UCS_ERR_SHMEM_SEGMENT", "UCS_ERR_ALREADY_EXISTS", "UCS_ERR_OUT_OF_RANGE", "UCS_ERR_TIMED_OUT",
        "UCS_ERR_EXCEEDS_LIMIT", "UCS_ERR_UNSUPPORTED", "UCS_ERR_REJECTED", "UCS_ERR_NOT_CONNECTED",
        "UCS_ERR_CONNECTION_RESET",
    };

    private UcsStatus() {
    }

    /** The symbolic name of {@code status}, e.g. {@code UCS_ERR_CONNECTION_RESET}. */
    public static String name(int status) {
        if (status == IN_PROGRESS) {
            return "UCS_INPROGRESS";
        }
        if (status <= 0 && -status < NAMES.length) {
            return NAMES[-status];
        }
        if (status <= -40 && status >= -59) {
            return "UCS_ERR_LINK_FAILURE";
        }
        if (status == -80) {
            return "UCS_ERR_ENDPOINT_TIMEOUT";
        }
        if (status <= -60 && status >= -89) {
            return "UCS_ERR_ENDPOINT_FAILURE";
        }
        return "UCS_STATUS";
    }

    /** {@code name (code)}, e.g. {@code UCS_ERR_CONNECTION_RESET (-25)}. */
    public static String describe(int status) {
        return name(status) + " (" + status + ")";
    }

    /** A message for a JUCX failure: the status it carries, if any, and its text. */
    public static String describe(Throwable error) {
        if (error instanceof UcxException u && u.getStatus() != 0) {
            return describe(u.getStatus()) + ": " + u.getMessage();
        }
        return String.valueOf(error);
    }

    /** The status a JUCX failure carries, or {@code fallback}. */
    public static int statusOf(Throwable error, int fallback) {
        return error instanceof UcxException u && u.getStatus() != 0 ? u.getStatus() : fallback;
    }
}
