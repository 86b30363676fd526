package io.blockxfer.benchmarks;

import io.blockxfer.holds.Hold;
import io.blockxfer.holds.HoldMessage;
import io.blockxfer.holds.HoldStats;
import io.blockxfer.transport.DataTransport;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.IntStream;

/**
 * What holds cost, on one backend in this JVM (loopback unless named; the backend must carry
 * notifications), driven from one thread with manual ticks so that only the work itself is timed
 * (and, on a backend that delivers notifications later, the wait for them):
 * <ol>
 *   <li><b>Hand-offs per second</b>: a hold created, its grant accepted, the owner's first answer,
 *       the release and the owner's end (three notifications), in rows interleaved round by round:
 *       {@code ceiling} (the same three notifications, of the same sizes, sent and taken with no
 *       holds: what the transport alone costs), {@code holds} and {@code holds+N} (with N other holds
 *       live, default 100,000). Medians and ranges over the rounds.</li>
 *   <li><b>Renewal traffic</b> at N live leases of one holder with one owner: one renewal round
 *       (a quarter TTL): its notifications and bytes each way, per held block set, the time the
 *       round took, and the rate of renewal traffic per held block set at a 10 s TTL.</li>
 *   <li><b>Memory per hold</b> at N live holds of 16 blocks: the heap after a full GC, before and
 *       after creating them (owner), then after accepting and confirming them all (holder), per
 *       hold; the 16-block array's share (80 bytes) included.</li>
 * </ol>
 * Prints the load average with every section.
 *
 * <pre>
 * java -Xmx2g --enable-native-access=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar io.blockxfer.benchmarks.HoldsBench [ROUNDS [SECONDS [LIVE [BACKEND]]]]
 * java -Xmx2g --enable-native-access=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar io.blockxfer.benchmarks.HoldsBench 5 2 100000 loopback
 * </pre>
 *
 * <p><b>Thread safety:</b> a program.
 */
public final class HoldsBench {

    private static final int BLOCKS_PER_HOLD = 16;
    private static final int REGION_BLOCKS = 1024;

    private HoldsBench() {
    }

    /** Runs the three sections; see the class comment for the arguments. */
    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 2.0;
        int live = args.length > 2 ? Integer.parseInt(args[2]) : 100_000;
        String backend = args.length > 3 ? args[3] : "loopback";
        System.out.printf(Locale.ROOT, "holds bench: %s, %d rounds of %.1f s, %,d live holds, %d blocks a hold%n",
                backend, rounds, seconds, live, BLOCKS_PER_HOLD);
        handOffs(backend, rounds, seconds, live);
        renewals(backend, rounds, live);
        memory(backend, live);
    }

    // ------------------------------------------------------------------ hand-offs

    private static void handOffs(String backend, int rounds, double seconds, int live) {
        String[] rows = {"ceiling", "holds", "holds+" + live};
        List<List<Double>> rates = new ArrayList<>();
        for (int i = 0; i < rows.length; i++) {
            rates.add(new ArrayList<>());
        }
        int[] blocks = IntStream.range(0, BLOCKS_PER_HOLD).toArray();
        try (HoldsRig plain = new HoldsRig(backend, REGION_BLOCKS); HoldsRig loaded = new HoldsRig(backend,
                REGION_BLOCKS)) {
            createLive(loaded, live);
            byte[] renew = HoldMessage.renew(1, 1L).encode();
            byte[] renewed = HoldMessage.renewed(1, new long[] {1}, new int[] {10_000}).encode();
            byte[] release = HoldMessage.release(true, 1L).encode();
            for (int r = -1; r < rounds; r++) { // round -1 warms up, unreported
                for (int k = 0; k < rows.length; k++) {
                    int row = Math.floorMod(k + r, rows.length);
                    double rate = switch (row) {
                        case 0 -> rate(seconds, () -> ceiling(plain, renew, renewed, release));
                        case 1 -> rate(seconds, () -> plain.handOff(blocks));
                        default -> rate(seconds, () -> loaded.handOff(blocks));
                    };
                    if (r >= 0) {
                        rates.get(row).add(rate);
                    }
                }
            }
        }
        System.out.println("1. hand-offs per second (create, accept, confirm, release, end: 3 notifications), load "
                + loadAverage());
        for (int i = 0; i < rows.length; i++) {
            System.out.printf(Locale.ROOT, "   %-14s median %,10.0f/s  range %,.0f-%,.0f%n", rows[i],
                    median(rates.get(i)), min(rates.get(i)), max(rates.get(i)));
        }
    }

    /** The three notifications of a hand-off, of the same sizes, with no holds. */
    private static int ceiling(HoldsRig rig, byte[] renew, byte[] renewed, byte[] release) {
        DataTransport o = rig.ownerTransport;
        DataTransport h = rig.holderTransport;
        h.sendNotification("owner", renew);
        HoldsRig.awaitOne(o, n -> o.sendNotification("holder", renewed));
        HoldsRig.awaitOne(h, n -> { });
        h.sendNotification("owner", release);
        HoldsRig.awaitOne(o, n -> { });
        return 1;
    }

    private interface Op {
        int run();
    }

    private static double rate(double seconds, Op op) {
        long end = System.nanoTime() + (long) (seconds * 1e9);
        long start = System.nanoTime();
        long n = 0;
        long check = 0;
        long now;
        do {
            for (int i = 0; i < 64; i++) {
                check += op.run();
            }
            n += 64;
            now = System.nanoTime();
        } while (now < end);
        if (check != n) {
            throw new IllegalStateException("an operation did not end as it should: " + check + " of " + n);
        }
        return n / ((now - start) / 1e9);
    }

    private static void createLive(HoldsRig rig, int live) {
        for (int i = 0; i < live; i++) {
            int base = (i * BLOCKS_PER_HOLD) % (REGION_BLOCKS - BLOCKS_PER_HOLD);
            rig.owner.create("holder", IntStream.range(base, base + BLOCKS_PER_HOLD).toArray(), HoldsRig.TTL);
        }
    }

    // ------------------------------------------------------------------ renewals

    private static void renewals(String backend, int rounds, int live) {
        try (HoldsRig rig = new HoldsRig(backend, REGION_BLOCKS)) {
            acceptLive(rig, live);
            List<Double> millis = new ArrayList<>();
            long sent = 0;
            long sentBytes = 0;
            long answers = 0;
            long answerBytes = 0;
            for (int r = -1; r < rounds; r++) {
                HoldStats before = rig.holder.stats();
                long ownerMsgs = rig.ownerReceived;
                long holderMsgs = rig.holderReceived;
                long holderBytes = rig.holderReceivedBytes;
                rig.clock.advance(HoldsRig.TTL.dividedBy(4));
                long t0 = System.nanoTime();
                rig.holder.tick();
                long want = before.renewalsConfirmed() + live;
                rig.drainUntil(() -> rig.holder.stats().renewalsConfirmed() >= want);
                rig.owner.tick();
                long t1 = System.nanoTime();
                HoldStats after = rig.holder.stats();
                if (after.renewalsConfirmed() - before.renewalsConfirmed() != live) {
                    throw new IllegalStateException("a round confirmed " + (after.renewalsConfirmed()
                            - before.renewalsConfirmed()) + " of " + live + " leases");
                }
                if (r >= 0) {
                    millis.add((t1 - t0) / 1e6);
                    sent = rig.ownerReceived - ownerMsgs;
                    sentBytes = after.renewalBytes() - before.renewalBytes();
                    answers = rig.holderReceived - holderMsgs;
                    answerBytes = rig.holderReceivedBytes - holderBytes;
                }
            }
            double perLease = (sentBytes + answerBytes) / (double) live;
            System.out.println("2. renewal traffic at " + String.format(Locale.ROOT, "%,d", live)
                    + " live leases of one holder with one owner, one round a quarter TTL, load " + loadAverage());
            System.out.printf(Locale.ROOT, "   a round: %,d renewal notifications (%,d B) and %,d answers (%,d B);"
                    + " %.1f B per held block set; median %.1f ms (range %.1f-%.1f) of one thread%n", sent, sentBytes,
                    answers, answerBytes, perLease, median(millis), min(millis), max(millis));
            System.out.printf(Locale.ROOT, "   per held block set at a %d s TTL: %.1f B/s, %.3f notifications/s%n",
                    HoldsRig.TTL.toSeconds(), perLease * 4 / HoldsRig.TTL.toSeconds(),
                    (sent + answers) * 4.0 / HoldsRig.TTL.toSeconds() / live);
        }
    }

    private static void acceptLive(HoldsRig rig, int live) {
        int[] blocks = IntStream.range(0, BLOCKS_PER_HOLD).toArray();
        for (int i = 0; i < live; i++) {
            Hold h = rig.owner.create("holder", blocks, HoldsRig.TTL);
            rig.holder.accept("owner", h.grant());
            if (i % 500 == 499) {
                long want = i + 1L;
                rig.drainUntil(() -> rig.holder.stats().renewalsConfirmed() >= want);
            }
        }
        rig.drainUntil(() -> rig.holder.stats().renewalsConfirmed() >= live);
    }

    // ------------------------------------------------------------------ memory

    private static void memory(String backend, int live) throws InterruptedException {
        MemoryMXBean mem = ManagementFactory.getMemoryMXBean();
        try (HoldsRig rig = new HoldsRig(backend, REGION_BLOCKS)) {
            int[] blocks = IntStream.range(0, BLOCKS_PER_HOLD).toArray();
            long empty = usedAfterGc(mem);
            List<Hold> holds = new ArrayList<>(live);
            for (int i = 0; i < live; i++) {
                holds.add(rig.owner.create("holder", blocks, HoldsRig.TTL));
            }
            long owned = usedAfterGc(mem);
            for (int i = 0; i < live; i++) {
                rig.holder.accept("owner", holds.get(i).grant());
                if (i % 500 == 499) {
                    long want = i + 1L;
                    rig.drainUntil(() -> rig.holder.stats().renewalsConfirmed() >= want);
                }
            }
            rig.drainUntil(() -> rig.holder.stats().renewalsConfirmed() >= live);
            long leased = usedAfterGc(mem);
            long listShare = 4L * live + 16;
            System.out.println("3. memory at " + String.format(Locale.ROOT, "%,d", live) + " live holds of "
                    + BLOCKS_PER_HOLD + " blocks (heap after a full GC), load " + loadAverage());
            System.out.printf(Locale.ROOT, "   owner: %.0f B per hold; holder: %.0f B per lease (each with its %d-block"
                    + " array, %d B; the owner's confirmed renewals included)%n",
                    (owned - empty - listShare) / (double) live, (leased - owned) / (double) live, BLOCKS_PER_HOLD,
                    16 + 4 * BLOCKS_PER_HOLD);
            if (rig.owner.stats().liveHolds() != live || rig.holder.stats().openLeases() != live) {
                throw new IllegalStateException("not every hold was live: " + rig.owner.stats());
            }
        }
    }

    private static long usedAfterGc(MemoryMXBean mem) throws InterruptedException {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++) {
            System.gc();
            Thread.sleep(50);
            used = Math.min(used, mem.getHeapMemoryUsage().getUsed());
        }
        return used;
    }

    // ------------------------------------------------------------------ figures

    private static double median(List<Double> xs) {
        double[] s = xs.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return s.length == 0 ? Double.NaN : s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1]
                + s[s.length / 2]) / 2;
    }

    private static double min(List<Double> xs) {
        return xs.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
    }

    private static double max(List<Double> xs) {
        return xs.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }

    private static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg"), StandardCharsets.US_ASCII).split(" ", -1);
            return String.join(" ", Arrays.copyOf(f, 3));
        } catch (IOException e) {
            return "?";
        }
    }
}
