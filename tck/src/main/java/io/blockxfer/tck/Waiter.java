package io.blockxfer.tck;

import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A call that blocks, on a platform thread of its own, which a rule can watch park, interrupt, and
 * collect the result of.
 *
 * <p><b>Thread safety:</b> thread-safe.
 *
 * @param <T> what the call returns
 */
final class Waiter<T> {

    /** A blocking call. */
    @FunctionalInterface
    interface Call<T> {
        T call() throws Exception;
    }

    private final Thread thread;
    private final CompletableFuture<T> result = new CompletableFuture<>();

    private Waiter(Fixture fx, String name, Call<T> call) {
        this.thread = Thread.ofPlatform().daemon().name("tck-" + fx.rule.name() + "-" + name).unstarted(() -> {
            try {
                result.complete(call.call());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        });
    }

    /** Starts {@code call} on a thread of its own. */
    static <T> Waiter<T> start(Fixture fx, String name, Call<T> call) {
        Waiter<T> w = new Waiter<>(fx, name, call);
        w.thread.start();
        return w;
    }

    Thread thread() {
        return thread;
    }

    /** Whether the call has returned or thrown. */
    boolean isDone() {
        return result.isDone();
    }

    /**
     * Waits until the call's thread is parked (waiting, with or without a time limit) and stays so,
     * without having returned; fails if it returns first.
     */
    void awaitParked(Fixture fx) {
        long deadline = System.nanoTime() + fx.env.timeout().toNanos();
        int parkedLooks = 0;
        while (parkedLooks < 3) {
            if (result.isDone()) {
                fail(fx.msg("the wait returned before anything could end it: " + describe()));
            }
            Thread.State state = thread.getState();
            parkedLooks = state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING ? parkedLooks + 1 : 0;
            if (System.nanoTime() - deadline > 0) {
                fail(fx.msg("the waiting thread never parked within " + fx.env.timeout().toMillis() + " ms (state "
                        + state + ")"));
            }
            fx.sleep(Duration.ofMillis(20));
        }
    }

    /** The call's result; fails if it threw or did not return within the kit's timeout (plus its hold). */
    T result(Fixture fx, String what) {
        try {
            return result.get(fx.env.timeout().plus(fx.env.hold()).toMillis() * 2, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof AssertionError ae) {
                throw ae;
            }
            throw new AssertionError(fx.msg(what + " threw " + cause), cause);
        } catch (TimeoutException e) {
            thread.interrupt();
            throw new AssertionError(fx.msg(what + " never returned"), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(fx.msg("interrupted waiting for " + what), e);
        }
    }

    private String describe() {
        try {
            return "returned " + result.getNow(null);
        } catch (RuntimeException e) {
            return "threw " + e.getCause();
        }
    }
}
