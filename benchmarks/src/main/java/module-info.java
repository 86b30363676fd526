/**
 * JMH benchmarks of the blockxfer hot path: submit+poll overhead of a one-block transfer per
 * backend, allocation per transfer ({@code -prof gc}), WRITE throughput against
 * {@code MemorySegment.copy} of the same blocks, and the floor of an FFM downcall. Not deployed;
 * run {@code java -jar benchmarks/target/benchmarks.jar}. Also the fair baselines
 * ({@code io.blockxfer.benchmarks.baseline.BaselineMain}, run by {@code scripts/bench-nixl} and
 * {@code scripts/bench-ucx}): the Java backends against NIXL's Python API, NIXL's C API, raw JUCX,
 * ucx_perftest and memcpy, interleaved round by round; and what a paced caller that waits costs
 * the whole process ({@code io.blockxfer.benchmarks.PacedWaitCpu}); and what holds cost: hold hand-offs
 * per second against the bare notifications they take, renewal traffic and memory per hold at
 * 100,000 live holds ({@code io.blockxfer.benchmarks.HoldsBench}).
 */
module io.blockxfer.benchmarks {
    requires io.blockxfer.transport;
    requires io.blockxfer.transport.nixl;
    requires io.blockxfer.transport.ucx;
    requires io.blockxfer.transport.holds;
    requires jucx;
    requires jmh.core;
    requires jdk.management;
    requires static org.jspecify;

    // nothing exported: JMH (an automatic module) runs the benchmarks from a shaded jar on the class path

    uses io.blockxfer.transport.spi.TransportProvider;
}
