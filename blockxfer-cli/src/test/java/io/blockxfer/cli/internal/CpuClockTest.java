package io.blockxfer.cli.internal;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import org.junit.jupiter.api.Test;

class CpuClockTest {

    @Test
    void countsTheCpuTimeOfThisProcessFinerThanAClockTick() {
        CpuClock clock = CpuClock.ofThisProcess();
        assertTrue(clock.available(), "process CPU time readable here");
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long start = clock.nanos();
        long threadStart = threads.getCurrentThreadCpuTime();
        long x = 0;
        while (threads.getCurrentThreadCpuTime() - threadStart < 30_000_000L) {
            x = x * 31 + 7; // 30 ms of CPU on this thread, however long the machine makes that take
        }
        long used = clock.nanos() - start;
        long thisThread = threads.getCurrentThreadCpuTime() - threadStart;
        assertTrue(used >= thisThread, () -> "the process counted " + used + " ns, this thread alone " + thisThread);
        // the tick-based fallback moves in steps of 10 ms; clock_gettime moves between two reads. A
        // single step also counts what the JVM's other threads ran meanwhile (more than a millisecond
        // on a loaded machine), so the smallest of several steps is what tells the two apart
        long step = Long.MAX_VALUE;
        for (int k = 0; k < 20; k++) {
            long a = clock.nanos();
            long b = a;
            for (int i = 0; i < 1000 && b == a; i++) {
                b = clock.nanos();
            }
            if (b > a) {
                step = Math.min(step, b - a);
            }
        }
        assertTrue(step < 1_000_000L, "a step finer than a millisecond: " + step + " (" + x + ")");
    }
}
