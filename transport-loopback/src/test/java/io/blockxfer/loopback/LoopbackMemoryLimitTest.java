package io.blockxfer.loopback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.InsufficientMemoryException;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A region this host cannot hold is refused with {@link InsufficientMemoryException} before
 * anything is mapped. Run in a child JVM: if the refusal failed, the allocation could take the
 * machine down with it.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class LoopbackMemoryLimitTest {

    private static final long TIB = 1L << 40;

    @Test
    void aTerabyteRegionIsRefusedAndLeavesNothingBehind() throws Exception {
        Process p = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-cp", System.getProperty("java.class.path"), TerabyteOpen.class.getName()))
                .redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), out);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("REFUSED " + InsufficientMemoryException.class.getName() + " requested=" + TIB), out);
        assertTrue(out.contains("cannot allocate a region of 1024.0 GiB"), out);
        assertTrue(out.contains("MAPPED-AFTER false"), out);
        assertTrue(out.contains("SMALL-OPENED"), out);
    }

    /** Opens a 1 TiB loopback region, prints how it was refused and what the process maps after. */
    public static final class TerabyteOpen {
        private TerabyteOpen() {
        }

        public static void main(String[] args) throws IOException {
            LoopbackProvider provider = new LoopbackProvider();
            try (DataTransport t = provider.open(TransportConfig.builder(RegionSpec.allocate(1 << 20, 1 << 20))
                    .agentName("terabyte").build())) {
                System.out.println("OPENED " + t.region());
            } catch (InsufficientMemoryException e) {
                System.out.println("REFUSED " + e.getClass().getName() + " requested=" + e.requestedBytes()
                        + " available=" + e.availableBytes() + ": " + e.getMessage());
            } catch (RuntimeException | OutOfMemoryError e) {
                System.out.println("FAILED " + e);
            }
            System.out.println("MAPPED-AFTER " + (virtualBytes() >= TIB));
            try (DataTransport t = provider.open(TransportConfig.builder(RegionSpec.allocate(4, 4096))
                    .agentName("terabyte").build())) {
                System.out.println("SMALL-OPENED " + t.region().byteSize());
            }
        }

        /** This process's virtual size ({@code VmSize}), which a mapped terabyte would be part of. */
        private static long virtualBytes() throws IOException {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.US_ASCII)) {
                if (line.startsWith("VmSize:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
            throw new IOException("no VmSize in /proc/self/status");
        }
    }
}
