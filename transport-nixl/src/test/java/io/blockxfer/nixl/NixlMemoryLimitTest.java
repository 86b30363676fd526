package io.blockxfer.nixl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.tck.process.ChildJvm;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.InsufficientMemoryException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A region this host cannot hold is refused with {@link InsufficientMemoryException} before
 * anything is mapped or any NIXL agent is made. Run in a child JVM: if the refusal failed, the
 * allocation could take the machine down with it.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class NixlMemoryLimitTest {

    private static final long TIB = 1L << 40;

    @Test
    void aTerabyteRegionIsRefusedAndLeavesNothingBehind() {
        NixlTests.assumeNixl();
        try (ChildJvm child = ChildJvm.builder(TerabyteOpen.class).jvmArgs(List.of("-Xmx256m"))
                .forwardSystemProperties(key -> key.startsWith("blockxfer.")).stderrTo(line -> { }).start()) {
            String refused = child.nextLine(Duration.ofSeconds(60));
            assertTrue(refused.startsWith("REFUSED " + InsufficientMemoryException.class.getName() + " requested="
                    + TIB) && refused.contains("cannot allocate a region of 1024.0 GiB"), refused);
            assertEquals("MAPPED-AFTER false", child.nextLine(Duration.ofSeconds(30)));
            String small = child.nextLine(Duration.ofSeconds(60));
            assertTrue(small.startsWith("SMALL-OPENED"), small);
            assertEquals(0, child.awaitExit(Duration.ofSeconds(60)), child::describe);
        }
    }

    /** Opens a 1 TiB NIXL region, prints how it was refused, what the process maps after, and opens a small one. */
    public static final class TerabyteOpen {
        private TerabyteOpen() {
        }

        public static void main(String[] args) throws IOException {
            ChildJvm.exitWhenParentDies();
            try (DataTransport t = NixlTests.open(NixlTests.config("terabyte", 1 << 20, 1 << 20).build())) {
                System.out.println("OPENED " + t.region());
            } catch (InsufficientMemoryException e) {
                System.out.println("REFUSED " + e.getClass().getName() + " requested=" + e.requestedBytes()
                        + " available=" + e.availableBytes() + ": " + e.getMessage());
            } catch (RuntimeException | OutOfMemoryError e) {
                System.out.println("FAILED " + e);
            }
            System.out.println("MAPPED-AFTER " + (virtualBytes() >= TIB));
            try (DataTransport t = NixlTests.open(NixlTests.config("terabyte", 4, 4096).build())) {
                System.out.println("SMALL-OPENED " + t.region().byteSize());
            } catch (RuntimeException e) {
                System.out.println("SMALL-FAILED " + e);
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
