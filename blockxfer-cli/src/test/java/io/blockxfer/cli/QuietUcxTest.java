package io.blockxfer.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * UCX's own warnings (here: a TCP setting while only shared memory is in use, which UCX calls an
 * invalid configuration when the worker is created) stay out of the command's output unless
 * {@code --log-level} asks for them; then they are one line of the command's format. The command
 * runs in its own JVM, where UCX would print on the process's standard output itself.
 */
class QuietUcxTest {

    private static final Duration EXIT = Duration.ofMinutes(2);
    private static final String[] BENCH = {"bench", "--backend", "ucx", "--processes", "1", "--ops", "write",
        "--block-sizes", "4K", "--batches", "1", "--window", "1", "--duration", "20ms", "--option",
        "ucx.tls=sm,self", "--option", "ucx.config.TCP_TX_SEG_SIZE=64k"};

    private static String run(String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of(BENCH));
        args.addAll(List.of(extra));
        try (CliProcess cli = CliProcess.start(List.of(), Map.of(), args.toArray(String[]::new))) {
            assertEquals(0, cli.awaitExit(EXIT), cli::output);
            return cli.output();
        }
    }

    @Test
    void ucxWarningsReachTheOutputOnlyWhenTheLogLevelAsks() throws Exception {
        Assumptions.assumeTrue(NativeBackends.crossProcess().contains("ucx"), "the ucx backend is unavailable here");
        String quiet = run();
        assertFalse(quiet.contains("invalid configuration"), quiet);
        assertTrue(quiet.lines().anyMatch(l -> l.startsWith("ucx ")), "the bench's own row is there: " + quiet);

        String asked = run("--log-level", "warn");
        assertTrue(asked.lines().anyMatch(l -> l.startsWith("warn org.openucx.ucx: invalid configuration:")
                && l.contains("TCP_TX_SEG_SIZE=64k")), asked);
        assertFalse(asked.lines().anyMatch(l -> l.contains("UCX  WARN")), "UCX printed its own line: " + asked);
    }
}
