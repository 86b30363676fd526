package io.blockxfer.transport;

/**
 * Which thread advances a transport's transfers. On a busy host a backend's own progress thread
 * competes with the caller's polling thread for a core; letting the polling thread drive progress
 * itself (when it can take the work without waiting) keeps one thread busy instead of two.
 *
 * <p><b>Thread safety:</b> an enum; immutable.
 */
public enum ProgressMode {

    /** The backend chooses the mode that measured best for it (the default). */
    AUTO,

    /**
     * Every poll drives the backend's progress on the polling thread when it can do so without
     * waiting; the backend's own thread remains the fallback for callers that poll rarely.
     */
    POLLING_THREAD,

    /** Only the backend's own thread advances transfers; polls only read their states. */
    BACKEND_THREAD
}
