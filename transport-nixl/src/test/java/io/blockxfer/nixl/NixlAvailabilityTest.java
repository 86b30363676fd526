package io.blockxfer.nixl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.tck.process.ChildJvm;
import io.blockxfer.transport.ProviderInfo;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import io.blockxfer.transport.spi.Availability;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Availability is probed for real and states the exact cause: here (the project's natives), and in
 * child JVMs pointed at a missing file, a file that is not a library, and a library that is not
 * NIXL's.
 */
class NixlAvailabilityTest {

    @Test
    void availableFromTheProjectFolderWithItsVersion() {
        NixlTests.assumeNixl();
        NixlProvider p = NixlTests.PROVIDER;
        assertEquals("nixl", p.name());
        assertTrue(p.availability().isAvailable(), p.availability().cause());
        String release = NixlTests.expectedRelease();
        assertTrue(p.nativeVersion().matches("nixl-cu1[23] " + java.util.regex.Pattern.quote(release)
                + " \\(certified: 1\\.0\\.0 to 1\\.5\\.1\\)"), p.nativeVersion());
        assertTrue(p.capabilities().contains(io.blockxfer.transport.Capability.TELEMETRY));
        ProviderInfo info = Transports.providers().stream().filter(i -> i.name().equals("nixl")).findFirst()
                .orElseThrow();
        assertTrue(info.isAvailable());
    }

    @Test
    void unknownOptionsAndBadValuesAreRejected() {
        NixlTests.assumeNixl();
        TransportConfig typo = TransportConfig.builder(RegionSpec.allocate(4, 4096)).option("nixl.progresThread", "x")
                .build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> NixlTests.open(typo));
        assertTrue(e.getMessage().contains("nixl.progresThread"), e.getMessage());
        TransportConfig bad = TransportConfig.builder(RegionSpec.allocate(4, 4096))
                .option(NixlOptions.PROGRESS_DELAY_MICROS, "-1").build();
        assertThrows(IllegalArgumentException.class, () -> NixlTests.open(bad));
        TransportConfig noPlugin = TransportConfig.builder(RegionSpec.allocate(4, 4096))
                .option(NixlOptions.BACKENDS, "NOPE").build();
        var error = assertThrows(io.blockxfer.transport.TransportException.class, () -> NixlTests.open(noPlugin));
        assertTrue(error.getMessage().contains("NOPE") && error.getMessage().contains("UCX"), error.getMessage());
    }

    @Test
    void aMissingLibraryIsNamed(@TempDir Path tmp) throws Exception {
        String out = probeIn(tmp.resolve("nowhere/libnixl_capi.so"));
        assertTrue(out.startsWith("UNAVAILABLE"), out);
        assertTrue(out.contains("does not exist") && out.contains("blockxfer.nixl.lib"), out);
    }

    @Test
    void aFileThatIsNotALibraryGetsTheLoadersOwnError(@TempDir Path tmp) throws Exception {
        Path junk = tmp.resolve("libnixl_capi.so");
        Files.writeString(junk, "not an ELF file\n");
        String out = probeIn(junk);
        assertTrue(out.startsWith("UNAVAILABLE"), out);
        assertTrue(out.contains("dlerror:") && (out.contains("invalid ELF header") || out.contains("file too short")),
                out);
    }

    @Test
    void aLibraryThatIsNotNixlsCAbiIsRefused() throws Exception {
        Path libc = Path.of("/lib/x86_64-linux-gnu/libm.so.6");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.exists(libc), "no " + libc);
        String out = probeIn(libc);
        assertTrue(out.startsWith("UNAVAILABLE"), out);
        assertTrue(out.contains("is not NIXL's C library"), out);
    }

    /** Runs {@link ProbeMain} in a child JVM with {@code blockxfer.nixl.lib} set; returns its line. */
    private static String probeIn(Path library) {
        try (ChildJvm child = ChildJvm.builder(ProbeMain.class).jvmArgs(List.of("-Dblockxfer.nixl.lib=" + library))
                .start()) {
            String out = child.nextLine(Duration.ofSeconds(60)).strip();
            assertEquals(0, child.awaitExit(Duration.ofSeconds(60)), "probe JVM exit: " + child.describe());
            assertFalse(out.isEmpty());
            return out;
        }
    }

    /** Prints the provider's availability in one line. */
    public static final class ProbeMain {
        private ProbeMain() {
        }

        public static void main(String[] args) {
            Availability a = new NixlProvider().availability();
            System.out.println(a.isAvailable() ? "AVAILABLE" : "UNAVAILABLE " + a.cause().replace('\n', ' '));
        }
    }
}
