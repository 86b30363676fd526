package io.blockxfer.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TckCommandTest {

    // full tier: the whole kit on loopback again, through the command; the tck module's
    // LoopbackConformanceTest certifies loopback in the fast tier, and aBrokenProviderFromAnOutsideJarFails
    // runs rules through the command
    @Tag("full")
    @Test
    void loopbackPassesTheWholeKit() {
        Cli.Result r = Cli.run("tck", "--backend", "loopback");
        assertEquals(0, r.exitCode(), r::toString);
        assertTrue(r.out().contains("PASS  [W1] "), r::toString);
        assertTrue(r.out().contains("PASS  [S2] "), r::toString);
        assertTrue(r.out().contains("SKIP  [R3] "), r::toString);
        assertTrue(r.out().lines().anyMatch(l -> l.matches("loopback \\(in-jvm\\): \\d+ passed, 0 failed, \\d+ skipped.*")),
                r::toString);
    }

    @Test
    void listsRules() {
        Cli.Result r = Cli.run("tck", "--list-rules");
        assertEquals(0, r.exitCode(), r::toString);
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("[W1] ")), r::toString);
    }

    /**
     * A provider from a jar outside the tool: a loopback that misreports its name, so descriptors and
     * transports name another backend than the provider does.
     */
    @Test
    void aBrokenProviderFromAnOutsideJarFails(@TempDir Path dir) throws Exception {
        Path jar = brokenProviderJar(dir);
        Cli.Result listed = Cli.run("backends", "--classpath", jar.toString());
        assertTrue(listed.out().lines().anyMatch(l -> l.startsWith("misnamed")), listed::toString);

        Cli.Result r = Cli.run("tck", "--backend", "misnamed", "--classpath", jar.toString(), "--rules", "G1,P1");
        assertEquals(1, r.exitCode(), r::toString);
        assertTrue(r.out().contains("FAIL  [G1] "), r::toString);
        assertTrue(r.out().contains("PASS  [P1] "), r::toString);
        assertTrue(r.out().contains("from " + jar), r::toString);
    }

    /** A provider whose availability probe throws an Error that discovery does not catch. */
    @Test
    void anErrorFromAProviderIsOneLine(@TempDir Path dir) throws Exception {
        Path jar = providerJar(dir, "ExplodingProvider", """
                package example;

                public final class ExplodingProvider implements io.blockxfer.transport.spi.TransportProvider {
                    public String name() { return "exploding"; }
                    public int priority() { return 1; }
                    public io.blockxfer.transport.spi.Availability availability() { throw new AssertionError("boom"); }
                    public java.util.Set<io.blockxfer.transport.Capability> capabilities() { return java.util.Set.of(); }
                    public io.blockxfer.transport.DataTransport open(io.blockxfer.transport.TransportConfig c) {
                        throw new AssertionError("boom");
                    }
                }
                """);
        Cli.Result r = Cli.run("backends", "--classpath", jar.toString());
        assertEquals(1, r.exitCode(), r::toString);
        assertEquals(1, r.errLines().size(), r::toString);
        assertTrue(r.err().contains("unexpected AssertionError: boom"), r::toString);
    }

    private static Path brokenProviderJar(Path dir) throws Exception {
        return providerJar(dir, "MisnamedProvider", """
                package example;

                public final class MisnamedProvider implements io.blockxfer.transport.spi.TransportProvider {
                    private final io.blockxfer.loopback.LoopbackProvider real = new io.blockxfer.loopback.LoopbackProvider();
                    public String name() { return "misnamed"; }
                    public int priority() { return 0; }
                    public io.blockxfer.transport.spi.Availability availability() { return real.availability(); }
                    public java.util.Set<io.blockxfer.transport.Capability> capabilities() { return real.capabilities(); }
                    public io.blockxfer.transport.DataTransport open(io.blockxfer.transport.TransportConfig c) {
                        return real.open(c);
                    }
                }
                """);
    }

    private static Path providerJar(Path dir, String className, String source) throws Exception {
        return ProviderJars.jar(dir, className, source);
    }
}
