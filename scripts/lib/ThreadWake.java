import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

/**
 * The cost of one thread wake on this machine, the reference that scripts/bench-callers holds the
 * futures' callbacks to: a platform thread parked in {@code LockSupport.parkNanos} (the timed park
 * in which the transport's completion thread and its waiters wait) is unparked by another thread,
 * which noted the time just before, after the sleeper rested 50 us (as between two transfers); the
 * woken thread measures how long it took to run again. The same with an untimed
 * {@code LockSupport.park}, for comparison. Prints the median and the 99th percentile of N wakes
 * (default 20,000) of each, in microseconds: {@code threadWakeP50Micros=... threadWakeP99Micros=...
 * untimedThreadWakeP50Micros=... untimedThreadWakeP99Micros=...}.
 *
 * <p>Run with the source launcher: {@code java scripts/lib/ThreadWake.java [N]}.
 *
 * <p><b>Thread safety:</b> a program; its two threads share volatile fields only.
 */
public final class ThreadWake {

    private static final long REST_NANOS = 50_000;
    private static final long TIMED_PARK_NANOS = 10_000_000;

    private static volatile long sentAt;
    private static volatile boolean sent;

    private ThreadWake() {
    }

    public static void main(String[] args) throws InterruptedException {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        long[] timed = wakes(n, true);
        long[] untimed = wakes(n, false);
        System.out.printf("threadWakeP50Micros=%.1f threadWakeP99Micros=%.1f untimedThreadWakeP50Micros=%.1f"
                + " untimedThreadWakeP99Micros=%.1f%n", timed[n / 2] / 1e3, timed[(int) (n * 0.99)] / 1e3,
                untimed[n / 2] / 1e3, untimed[(int) (n * 0.99)] / 1e3);
    }

    /** The sorted wake latencies of {@code n} wakes, after a tenth as many to warm up. */
    private static long[] wakes(int n, boolean timedPark) throws InterruptedException {
        int warmUp = n / 10;
        long[] took = new long[n + warmUp];
        Thread.State parked = timedPark ? Thread.State.TIMED_WAITING : Thread.State.WAITING;
        Thread sleeper = Thread.ofPlatform().name("woken").start(() -> {
            for (int i = 0; i < took.length; i++) {
                while (!sent) {
                    if (timedPark) {
                        LockSupport.parkNanos(TIMED_PARK_NANOS);
                    } else {
                        LockSupport.park();
                    }
                }
                took[i] = System.nanoTime() - sentAt;
                sent = false;
            }
        });
        for (int i = 0; i < took.length; i++) {
            while (sleeper.getState() != parked || sent) { // parked, and done with the last wake
                Thread.onSpinWait();
            }
            LockSupport.parkNanos(REST_NANOS); // the sleeper rests, as between two transfers
            sentAt = System.nanoTime();
            sent = true;
            LockSupport.unpark(sleeper);
        }
        sleeper.join();
        long[] measured = Arrays.copyOfRange(took, warmUp, took.length);
        Arrays.sort(measured);
        return measured;
    }
}
