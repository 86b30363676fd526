package io.blockxfer.nixl.internal;

/**
 * The one translator of {@code nixl_capi_status_t}, the status every {@code nixl_capi_*} function
 * of the 1.5.1 C ABI returns. {@link #IN_PROG} is a pending state, not an error.
 *
 * <p>The C ABI folds most of NIXL's own errors into {@link #ERROR_BACKEND}: remote disconnect,
 * cancelled, repost-active, not-allowed, mismatch, not-posted, and any C++ exception the wrapper
 * caught. A {@code -2} therefore says "failed", never why.
 *
 * <p><b>Thread safety:</b> stateless.
 */
public final class NixlStatus {

    /** The call succeeded; for a transfer: it completed. */
    public static final int SUCCESS = 0;
    /** A transfer is still in progress (pending, not an error). */
    public static final int IN_PROG = 1;
    /** An argument was null, empty or out of range. */
    public static final int ERROR_INVALID_PARAM = -1;
    /** NIXL or a backend failed; also remote disconnect, cancel, and any caught C++ exception. */
    public static final int ERROR_BACKEND = -2;
    /** The object is in the wrong state (e.g. destroying a transfer request not yet released). */
    public static final int ERROR_INVALID_STATE = -3;
    /** The wrapper caught a C++ exception. */
    public static final int ERROR_EXCEPTION = -4;
    /** Telemetry was asked for but is not captured. */
    public static final int ERROR_NO_TELEMETRY = -5;
    /** The remote agent (or another named object) is unknown. */
    public static final int ERROR_NOT_FOUND = -6;

    private NixlStatus() {
    }

    /** The C name of {@code status}, e.g. {@code NIXL_CAPI_ERROR_BACKEND}. */
    public static String name(int status) {
        return switch (status) {
            case SUCCESS -> "NIXL_CAPI_SUCCESS";
            case IN_PROG -> "NIXL_CAPI_IN_PROG";
            case ERROR_INVALID_PARAM -> "NIXL_CAPI_ERROR_INVALID_PARAM";
            case ERROR_BACKEND -> "NIXL_CAPI_ERROR_BACKEND";
            case ERROR_INVALID_STATE -> "NIXL_CAPI_ERROR_INVALID_STATE";
            case ERROR_EXCEPTION -> "NIXL_CAPI_ERROR_EXCEPTION";
            case ERROR_NO_TELEMETRY -> "NIXL_CAPI_ERROR_NO_TELEMETRY";
            case ERROR_NOT_FOUND -> "NIXL_CAPI_ERROR_NOT_FOUND";
            default -> "unknown nixl_capi status " + status;
        };
    }

    /** What {@code status} means, in words. */
    public static String meaning(int status) {
        return switch (status) {
            case SUCCESS -> "success";
            case IN_PROG -> "in progress";
            case ERROR_INVALID_PARAM -> "invalid parameter";
            case ERROR_BACKEND -> "backend error (NIXL folds remote disconnect, cancel, mismatch and caught"
                    + " exceptions into this code)";
            case ERROR_INVALID_STATE -> "invalid state";
            case ERROR_EXCEPTION -> "C++ exception caught by the C wrapper";
            case ERROR_NO_TELEMETRY -> "telemetry not captured";
            case ERROR_NOT_FOUND -> "not found";
            default -> "unknown status";
        };
    }

    /** Whether {@code status} is an error (negative). {@link #IN_PROG} is not. */
    public static boolean isError(int status) {
        return status < 0;
    }

    /** Whether {@code status} is {@link #IN_PROG}. */
    public static boolean isPending(int status) {
        return status == IN_PROG;
    }

    /** {@code "op: NAME (meaning)"}. */
    public static String describe(String op, int status) {
        return op + ": " + name(status) + " (" + meaning(status) + ")";
    }

    /**
     * Throws a {@link NixlException} unless {@code status} is {@link #SUCCESS}.
     *
     * @param op the C function, for the message
     */
    public static void check(String op, int status) {
        if (status != SUCCESS) {
            throw new NixlException(op, status);
        }
    }
}
