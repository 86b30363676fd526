package io.blockxfer.multihost;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Samples this process's open file descriptors ({@code /proc/self/fd}), live threads and resident
 * set size ({@code Threads:} and {@code VmRSS:} of {@code /proc/self/status}) at a fixed interval
 * on a daemon thread of its own, which counts as one of the threads it samples.
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
final class ResourceSampler implements AutoCloseable {

    /**
     * One sample.
     *
     * @param minutes minutes since the sampler started
     * @param fds open file descriptors
     * @param threads live threads
     * @param rssKiB resident set size in KiB ({@code VmRSS})
     * @param anonKiB its anonymous part ({@code RssAnon}): heap, malloc, thread stacks
     * @param shmemKiB its shared-memory part ({@code RssShmem}): pages of shared segments touched,
     *     such as the peers' regions a backend maps
     * @param segments shared-memory segments mapped (SysV, or files in {@code /dev/shm}), each
     *     counted once however many mappings it has
     * @param shmMappedKiB the size of every mapping of such segments, in KiB: a segment attached
     *     twice counts twice, so a leaked attachment shows even when no segment is new
     */
    record Sample(double minutes, long fds, long threads, long rssKiB, long anonKiB, long shmemKiB, long segments,
            long shmMappedKiB) {

        /** A CSV header matching {@link #csv()}. */
        static final String CSV_HEADER =
                "minutes,fds,threads,rss_kib,rss_anon_kib,rss_shmem_kib,shm_segments,shm_mapped_kib";

        /** The resident memory that is the process's own: {@code VmRSS} without the shared segments' pages, in KiB. */
        long privateKiB() {
            return rssKiB - shmemKiB;
        }

        /** This sample as a CSV line. */
        String csv() {
            return String.format(java.util.Locale.ROOT, "%.4f,%d,%d,%d,%d,%d,%d,%d", minutes, fds, threads, rssKiB,
                    anonKiB, shmemKiB, segments, shmMappedKiB);
        }
    }

    private final long startNanos = System.nanoTime();
    private final List<Sample> samples = new ArrayList<>();
    private final Thread thread;
    private volatile boolean stopped;

    /** Starts sampling now and then every {@code interval}. */
    ResourceSampler(Duration interval) {
        long nanos = interval.toNanos();
        record(take(startNanos));
        thread = Thread.ofPlatform().daemon().name("soak-sampler").start(() -> {
            long next = startNanos + nanos;
            while (!stopped) {
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    try {
                        Thread.sleep(Duration.ofNanos(wait));
                    } catch (InterruptedException e) {
                        return;
                    }
                    continue;
                }
                next += nanos;
                record(take(startNanos));
            }
        });
    }

    private synchronized void record(Sample s) {
        samples.add(s);
    }

    /** Every sample so far, oldest first. */
    synchronized List<Sample> samples() {
        return List.copyOf(samples);
    }

    /** The latest sample. */
    synchronized Sample last() {
        return samples.getLast();
    }

    /** A sample of now, not recorded. */
    Sample now() {
        return take(startNanos);
    }

    /** Stops sampling; idempotent. */
    @Override
    public void close() {
        stopped = true;
        thread.interrupt();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static Sample take(long startNanos) {
        long fds;
        try (Stream<Path> list = Files.list(Path.of("/proc/self/fd"))) {
            fds = list.count() - 1; // the listing's own descriptor
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list /proc/self/fd", e);
        }
        long threads = -1;
        long rss = -1;
        long anon = -1;
        long shmem = -1;
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Threads:")) {
                    threads = Long.parseLong(line.substring(8).trim());
                } else if (line.startsWith("VmRSS:")) {
                    rss = kib(line);
                } else if (line.startsWith("RssAnon:")) {
                    anon = kib(line);
                } else if (line.startsWith("RssShmem:")) {
                    shmem = kib(line);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read /proc/self/status", e);
        }
        long[] shm = sharedMappings();
        return new Sample((System.nanoTime() - startNanos) / 60e9, fds, threads, rss, anon, shmem, shm[0], shm[1]);
    }

    /**
     * The shared-memory segments in {@code /proc/self/maps} (SysV ones, files in {@code /dev/shm}):
     * how many distinct ones (by device and inode, a SysV segment's inode being its id), and the
     * size of all their mappings in KiB.
     */
    private static long[] sharedMappings() {
        java.util.Set<String> seen = new java.util.HashSet<>();
        long bytes = 0;
        try (Stream<String> lines = Files.lines(Path.of("/proc/self/maps"))) {
            for (String line : (Iterable<String>) lines::iterator) {
                if (line.contains("/SYSV") || line.contains("/dev/shm/")) {
                    String[] f = line.trim().split("\\s+", -1);
                    if (f.length >= 5) {
                        seen.add(f[3] + ":" + f[4]);
                        int dash = f[0].indexOf('-');
                        bytes += Long.parseUnsignedLong(f[0].substring(dash + 1), 16)
                                - Long.parseUnsignedLong(f[0].substring(0, dash), 16);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read /proc/self/maps", e);
        }
        return new long[] {seen.size(), bytes / 1024};
    }

    private static long kib(String statusLine) {
        return Long.parseLong(statusLine.substring(statusLine.indexOf(':') + 1).replace("kB", "").trim());
    }
}
