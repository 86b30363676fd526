package io.blockxfer.ucx;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * Churn in a child JVM of its own, so that what it measures is the backend and not the test
 * runner: {@code peers N} adds a peer, writes one block to it and removes it, {@code N} times;
 * {@code opens N} opens a transport, adds the target, writes one block and closes it, {@code N}
 * times. Every {@code sample} cycles it prints {@code SAMPLE cycle fds threads rssKiB} from
 * {@code /proc/self}; {@link UcxChurnTest} fits slopes to the second half. Arguments:
 * {@code mode cycles sampleEvery}.
 *
 * <p><b>Thread safety:</b> a program.
 */
public final class ChurnRun {

    private ChurnRun() {
    }

    /** Runs the churn. */
    public static void main(String[] args) throws Exception {
        String mode = args[0];
        int cycles = Integer.parseInt(args[1]);
        int every = Integer.parseInt(args[2]);
        TransportConfig config = TransportConfig.builder(RegionSpec.allocate(16, 4096)).build();
        int[] local = {1};
        int[] remote = {2};
        try (DataTransport target = new UcxProvider().open(config)) {
            if (mode.equals("peers")) {
                try (DataTransport initiator = new UcxProvider().open(config)) {
                    for (int i = 0; i < cycles; i++) {
                        initiator.addPeer("t", target.localDescriptor());
                        await(initiator, initiator.writeBlocks("t", local, remote));
                        initiator.removePeer("t");
                        sample(i + 1, every);
                    }
                }
            } else {
                boolean withPeer = !mode.equals("opens-alone");
                for (int i = 0; i < cycles; i++) {
                    try (DataTransport initiator = new UcxProvider().open(config)) {
                        if (withPeer) {
                            initiator.addPeer("t", target.localDescriptor());
                            await(initiator, initiator.writeBlocks("t", local, remote));
                        }
                    }
                    sample(i + 1, every);
                }
            }
        }
        System.out.println("DONE");
    }

    private static void await(DataTransport t, long id) {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (System.nanoTime() < deadline) {
            PollResult r = t.poll("t");
            if (r.failedCount() > 0) {
                throw new IllegalStateException("transfer " + id + " failed");
            }
            if (r.doneCount() > 0) {
                return;
            }
        }
        throw new IllegalStateException("transfer " + id + " never ended");
    }

    /** Resident KiB of this process by kind of mapping ({@code /proc/self/smaps}), for finding what grows. */
    private static java.util.Map<String, Long> smaps() throws IOException {
        java.util.Map<String, Long> kinds = new java.util.TreeMap<>();
        String kind = "?";
        for (String line : Files.readAllLines(Path.of("/proc/self/smaps"), StandardCharsets.ISO_8859_1)) {
            if ((Character.isDigit(line.charAt(0)) || (line.charAt(0) >= 'a' && line.charAt(0) <= 'f'))
                    && line.indexOf('-') > 0 && line.indexOf('-') < 17) {
                String[] f = line.trim().split("\\s+", 6);
                String name = f.length > 5 ? f[5] : "";
                if (name.isEmpty()) {
                    kind = "anon";
                } else if (name.startsWith("/SYSV")) {
                    kind = "sysv";
                } else if (name.startsWith("/dev/shm")) {
                    kind = "posix-shm";
                } else if (name.contains("libuc")) {
                    kind = "ucx-lib";
                } else if (name.startsWith("[")) {
                    kind = name;
                } else {
                    kind = "file";
                }
            } else if (line.startsWith("Rss:")) {
                kinds.merge(kind, Long.parseLong(line.substring(4).trim().split("\\s+", -1)[0]), Long::sum);
            }
        }
        return kinds;
    }

    private static void sample(int cycle, int every) throws IOException {
        if (cycle % every != 0) {
            return;
        }
        long fds;
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            fds = s.count();
        }
        long threads = 0;
        long rss = 0;
        for (String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.US_ASCII)) {
            if (line.startsWith("Threads:")) {
                threads = Long.parseLong(line.substring(8).trim());
            } else if (line.startsWith("VmRSS:")) {
                rss = Long.parseLong(line.substring(6).trim().split("\\s+", -1)[0]);
            }
        }
        System.out.println("SAMPLE " + cycle + " " + fds + " " + threads + " " + rss);
        if (Boolean.getBoolean("blockxfer.ucx.churnSmaps")) {
            System.out.println("SMAPS " + cycle + " heapCommittedKiB=" + Runtime.getRuntime().totalMemory() / 1024
                    + " " + smaps());
        }
        String dump = System.getProperty("blockxfer.ucx.churnSmapsDump");
        if (dump != null) {
            Files.copy(Path.of("/proc/self/smaps"), Path.of(dump + "-" + cycle + ".txt"),
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        System.out.flush();
    }
}
