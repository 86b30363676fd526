package io.blockxfer.ucx.internal;

/**
 * What the UCX log filter did in this process, for tests in other packages.
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
public final class UcxLogLines {

    private UcxLogLines() {
    }

    /** How many of JUCX's lines per failed request were kept out of the log. */
    public static long dropped() {
        return UcxLogFilter.dropped();
    }
}
