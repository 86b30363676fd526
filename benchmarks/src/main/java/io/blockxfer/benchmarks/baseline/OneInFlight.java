package io.blockxfer.benchmarks.baseline;

/**
 * The measuring loop of the Java contenders: one transfer at a time on slot {@code k mod slots},
 * after a warm-up of a quarter of the time (at most half a second), counting transfers in whole
 * batches of 16 until the time is up.
 *
 * <p><b>Thread safety:</b> stateless.
 */
final class OneInFlight {

    /** One whole transfer, submitted and waited for; throws if it failed. */
    @FunctionalInterface
    interface Transfer {
        void run(int slot) throws Exception;
    }

    private OneInFlight() {
    }

    /** The rate of {@code transfer} in {@code c}'s unit over about {@code seconds}. */
    static double rate(BaselineCase c, Transfer transfer, double seconds) throws Exception {
        int slots = c.slots();
        long k = 0;
        long warmEnd = System.nanoTime() + (long) (Math.min(0.5, seconds / 4) * 1e9);
        while (System.nanoTime() < warmEnd) {
            transfer.run((int) (k++ % slots));
        }
        long n = 0;
        long start = System.nanoTime();
        long end = start + (long) (seconds * 1e9);
        long now;
        do {
            for (int i = 0; i < 16; i++) {
                transfer.run((int) (k++ % slots));
            }
            n += 16;
        } while ((now = System.nanoTime()) < end);
        return c.rate(n, now - start);
    }
}
