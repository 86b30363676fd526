package io.blockxfer.ucx.internal;

/**
 * Work for the {@link ProgressLoop}: queued by any thread, run on the loop thread, or rejected when
 * the loop shuts down first.
 *
 * <p><b>Thread safety:</b> implementations are handed over through the loop's queue.
 */
interface LoopCommand {

    /** Runs on the loop thread. */
    void run(ProgressLoop loop);

    /** The loop stopped before running this command. */
    void reject(String why);
}
