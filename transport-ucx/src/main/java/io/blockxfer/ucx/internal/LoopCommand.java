package io.blockxfer.ucx.internal;

/**
 * Work for the {@link ProgressLoop}: queued by any thread ({@link CommandIntake}), run by the owner
 * of the loop's worker ({@link WorkerDriver}), or rejected when the loop shuts down first.
 *
 * <p><b>Thread safety:</b> implementations are handed over through the loop's queue.
 */
interface LoopCommand {

    /** Runs on the owner of the loop's worker. */
    void run(ProgressLoop loop);

    /** The loop stopped before running this command. */
    void reject(String why);
}
