package io.blockxfer.transport.spi;

/**
 * How a {@link TransferEngine} tells its {@link ManagedTransport} that a transfer may have become
 * terminal, so that callers waiting for completions wake without polling. Handed to the engine
 * once, by {@link TransferEngine#bindCompletionSignal}.
 *
 * <p><b>Thread safety:</b> thread-safe; {@link #signal()} may be called from any thread, as often
 * as the engine likes.
 */
@FunctionalInterface
public interface CompletionSignal {

    /**
     * A transfer may have become terminal (its {@link TransferEngine#status} changed, or will read
     * terminal at the next look). Call it after the state is published, from the engine's own
     * thread and from threads that drive {@link TransferEngine#progress()}; never from inside a
     * native callback that must not block (it takes a short lock when callers wait). Wakes every
     * waiting caller, who then looks; spurious calls cost a look. When nobody waits it costs one
     * volatile read and allocates nothing.
     */
    void signal();
}
