import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

/**
 * The cost of one thread wake on this machine, the reference that scripts/bench-callers holds the
 * futures' callbacks to: a platform thread parked in LockSupport.park is unparked by another, which
 * noted the time just before; the woken thread measures how long it took to run again. Prints the
 * median and the 99th percentile of N wakes (default 20,000), in microseconds, as
 * {@code threadWakeP50Micros=..., threadWakeP99Micros=...}.
 *
 * <p>Run with the source launcher: {@code java scripts/lib/ThreadWake.java [N]}.
 *
 * <p><b>Thread safety:</b> a program; its two threads share volatile fields only.
 */
public final class ThreadWake {

    private static volatile long sentAt;
    private static volatile boolean sent;
    private static volatile boolean done;

    private ThreadWake() {
    }

    public static void main(String[] args) throws InterruptedException {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        int warmUp = n / 10;
        long[] took = new long[n + warmUp];
        Thread sleeper = Thread.ofPlatform().name("woken").start(() -> {
            for (int i = 0; i < took.length; i++) {
                while (!sent) {
                    LockSupport.park();
                }
                took[i] = System.nanoTime() - sentAt;
                sent = false;
            }
            done = true;
        });
        for (int i = 0; i < took.length; i++) {
            while (sleeper.getState() != Thread.State.WAITING || sent) { // parked, and done with the last wake
                Thread.onSpinWait();
            }
            sentAt = System.nanoTime();
            sent = true;
            LockSupport.unpark(sleeper);
        }
        sleeper.join();
        if (!done) {
            throw new IllegalStateException("the woken thread did not finish");
        }
        long[] measured = Arrays.copyOfRange(took, warmUp, took.length);
        Arrays.sort(measured);
        System.out.printf("threadWakeP50Micros=%.1f threadWakeP99Micros=%.1f%n", measured[n / 2] / 1e3,
                measured[(int) (n * 0.99)] / 1e3);
    }
}
