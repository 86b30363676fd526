package io.blockxfer.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Bad usage is one short line on standard error and exit status 2; a failure at run time is one
 * line and exit status 1; the long form (every provider's cause, library paths) appears only under
 * {@code --verbose}.
 */
class BadInputTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            bench --frobnicate                          | Unknown option
            bench --backend nosuch                      | unknown backend 'nosuch' (known:
            bench --block-sizes 1T                      | more than the limit
            bench --block-sizes 64K --max-memory 1M     | more than the limit
            bench --block-sizes 12X                     | bad size '12X'
            bench --block-sizes 0                       | must be positive
            bench --batches 0                           | --batches must be between
            bench --duration forever                    | bad duration
            bench --duration 10us                       | --duration must be at least 1ms
            bench --processes 3                         | --processes must be 1 or 2
            bench --ops write,erase                     | --ops
            bench --window -1                           | --window must be
            bench --poll sometimes                      | --poll
            bench --rate 0                              | --rate must be more than 0
            bench --rate -5                             | --rate must be more than 0
            bench --rate 1e12                           | --rate must be more than 0 and at most
            bench --rate fast                           | --rate
            bench --progress fast                       | --progress must be auto, polling or backend
            bench --option novalue                      | --option must be KEY=VALUE
            bench --connect host:99999                  | port must be 0 to 65535
            bench --connect ::1:7470                    | put an IPv6 address in brackets
            bench --connect localhost --processes 2     | --connect and --processes 2 exclude each other
            bench --connect localhost --backend loopback| --connect needs backends whose peers can live
            bench --listen 0.0.0.0:1                    | --listen is for --serve
            bench --serve --block-sizes 4K              | --block-sizes is for the initiator
            bench --serve --json                        | --json is for the initiator
            bench --serve --connect localhost           | --serve and --connect exclude each other
            bench --serve --listen host:x               | port must be 0 to 65535
            backends --classpath /no/such.jar           | does not exist
            tck --backend nosuch                        | unknown backend 'nosuch' (known:
            tck                                         | missing --backend
            tck --backend loopback --rules Z9           | unknown conformance rule ids [Z9]
            tck --backend loopback --two-process        | CROSS_PROCESS
            frobnicate                                  | Unmatched argument
            """)
    void usageErrorsAreOneShortLineAndExitTwo(String command, String expected) {
        Cli.Result r = Cli.run(command.trim().split("\\s+"));
        assertEquals(2, r.exitCode(), r::toString);
        assertEquals(1, r.errLines().size(), () -> "not one line: " + r);
        assertTrue(r.err().contains(expected), r::toString);
        assertTrue(r.errLines().getFirst().length() < 240, () -> "not short: " + r);
        assertFalse(r.err().contains("\tat ") || r.err().contains("Exception"), () -> "stack trace or type: " + r);
    }

    @Test
    void anUnknownBackendNamesTheKnownOnesAndKeepsTheCausesForVerbose() {
        Cli.Result quiet = Cli.run("bench", "--backend", "nosuch");
        assertEquals(2, quiet.exitCode(), quiet::toString);
        assertTrue(quiet.err().contains("loopback"), quiet::toString);
        assertFalse(quiet.err().contains("priority"), () -> "causes without --verbose: " + quiet);

        Cli.Result verbose = Cli.run("bench", "--backend", "nosuch", "--verbose");
        assertEquals(2, verbose.exitCode(), verbose::toString);
        assertEquals(quiet.errLines().getFirst(), verbose.errLines().getFirst(), verbose::toString);
        assertTrue(verbose.errLines().size() > 1, verbose::toString);
        assertTrue(verbose.err().contains("loopback (priority 0): available"), verbose::toString);
    }

    /** An unavailable backend is a failure here (exit 1), not bad usage; its cause only under --verbose. */
    @Test
    void anUnavailableBackendIsOneLineWithItsCauseUnderVerbose(@TempDir Path dir) throws Exception {
        Path jar = ProviderJars.jar(dir, "AbsentProvider", """
                package example;

                public final class AbsentProvider implements io.blockxfer.transport.spi.TransportProvider {
                    public String name() { return "absent"; }
                    public int priority() { return 1; }
                    public io.blockxfer.transport.spi.Availability availability() {
                        return io.blockxfer.transport.spi.Availability.unavailable(
                                "libabsent.so: cannot open shared object file at /opt/secret/lib");
                    }
                    public java.util.Set<io.blockxfer.transport.Capability> capabilities() { return java.util.Set.of(); }
                    public io.blockxfer.transport.DataTransport open(io.blockxfer.transport.TransportConfig c) {
                        throw new IllegalStateException("unavailable");
                    }
                }
                """);
        Cli.Result quiet = Cli.run("bench", "--backend", "absent", "--classpath", jar.toString());
        assertEquals(1, quiet.exitCode(), quiet::toString);
        assertEquals(1, quiet.errLines().size(), quiet::toString);
        assertTrue(quiet.err().contains("backend 'absent' is unavailable here"), quiet::toString);
        assertFalse(quiet.err().contains("/opt/secret"), () -> "a library path without --verbose: " + quiet);

        Cli.Result verbose = Cli.run("bench", "--backend", "absent", "--classpath", jar.toString(), "--verbose");
        assertEquals(1, verbose.exitCode(), verbose::toString);
        assertTrue(verbose.err().contains("/opt/secret/lib"), verbose::toString);
    }

    @Test
    void aServerWithNothingToServeIsOneLineAndExitsOne() {
        Cli.Result r = Cli.run("bench", "--serve", "--listen", "127.0.0.1:0", "--backend", "loopback");
        assertEquals(1, r.exitCode(), r::toString);
        assertEquals(1, r.errLines().size(), r::toString);
        assertTrue(r.err().contains("nothing to serve: no backend here can reach another process among [loopback]"),
                r::toString);
    }

    @Test
    void anUnreachableServerIsOneLineAndExitsOne() {
        Cli.Result r = Cli.run("bench", "--connect", "127.0.0.1:1", "--backend", "all");
        assertEquals(1, r.exitCode(), r::toString);
        assertEquals(1, r.errLines().size(), r::toString);
        assertTrue(r.err().contains("could not open a bench session with 127.0.0.1:1"), r::toString);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            bench --help    | --block-sizes
            backends --help | --json
            tck --help      | --classpath
            --version       | blockxfer
            """)
    void helpAndVersionSucceed(String command, String expected) {
        Cli.Result r = Cli.run(command.trim().split("\\s+"));
        assertEquals(0, r.exitCode(), r::toString);
        assertTrue(r.out().contains(expected), r::toString);
    }

    @Test
    void noCommandPrintsUsageAndExitsTwo() {
        Cli.Result r = Cli.run();
        assertEquals(2, r.exitCode(), r::toString);
        assertTrue(r.err().contains("bench"), r::toString);
    }
}
