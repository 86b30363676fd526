package io.blockxfer.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.tck.process.EtcdCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The command in its own JVM as the launcher starts it ({@link CliProcess}: the launcher's JVM
 * options), with {@code --directory} against a real one-member etcd ({@link EtcdCluster}: skipped
 * without an etcd binary unless {@code -Dblockxfer.etcd.require=true}), where jetcd loads gRPC,
 * Netty, Vert.x and protobuf: by default it prints its own lines only ({@link OwnLines}), with no
 * SLF4J line, no JDK warning about {@code sun.misc.Unsafe} and no library log; {@code --log-level}
 * and {@code BLOCKXFER_LOG_LEVEL} let the libraries log, in the command's one-line format, the
 * option winning over the environment.
 */
class QuietLibrariesTest {

    private static final String PREFIX = "/bench-quiet/";
    private static final Duration EXIT = Duration.ofSeconds(60);
    private static final Pattern LIBRARY_DEBUG = Pattern.compile("^debug (io\\.grpc|io\\.netty|io\\.vertx|io\\.etcd)\\.");

    private static @Nullable EtcdCluster etcd;

    @BeforeAll
    static void startEtcd() {
        etcd = EtcdCluster.start(1);
    }

    @AfterAll
    static void stopEtcd() {
        if (etcd != null) {
            etcd.close();
        }
    }

    private static String endpoints() {
        assertTrue(etcd != null, "etcd runs");
        return etcd.endpoints();
    }

    /** The one line of the command's answer: etcd answered, nothing is published under the prefix. */
    private static String noServer() {
        return "blockxfer bench: no bench server is published in " + endpoints() + " under " + PREFIX
                + " (start one with 'bench --serve --directory ...')";
    }

    /** Runs {@code bench --connect --directory ENDPOINTS --prefix PREFIX extra...}; its output once it exited 1. */
    private static String connect(Map<String, String> env, String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of("bench", "--connect", "--directory", endpoints(),
                "--prefix", PREFIX));
        args.addAll(List.of(extra));
        try (CliProcess cli = CliProcess.start(List.of(), env, args.toArray(String[]::new))) {
            int exit = cli.awaitExit(EXIT);
            assertEquals(1, exit, cli::output);
            return cli.output();
        }
    }

    @Test
    void byDefaultTheCommandPrintsItsOwnLinesOnly() throws Exception {
        String out = connect(Map.of());
        OwnLines.assertOnlyOwn(out);
        assertEquals(List.of(noServer()), out.lines().toList(), out);
    }

    /**
     * No etcd answers: jetcd warns of its failed retries ({@code io.etcd.jetcd.impl.KVImpl}), which
     * the user does not see; the command's own line says what failed.
     */
    @Test
    void anUnreachableEtcdIsTheCommandsOneLineWithoutTheLibrarysWarnings() throws Exception {
        String nowhere = "127.0.0.1:" + EtcdCluster.freePorts(1).getFirst();
        String out;
        try (CliProcess cli = CliProcess.start(List.of(), Map.of(), "bench", "--connect", "--directory",
                "etcd://" + nowhere)) {
            assertEquals(1, cli.awaitExit(EXIT), cli::output);
            out = cli.output();
        }
        OwnLines.assertOnlyOwn(out);
        List<String> lines = out.lines().toList();
        assertEquals(1, lines.size(), out);
        assertTrue(lines.getFirst().startsWith("blockxfer bench: could not list the bench servers in etcd://" + nowhere)
                && lines.getFirst().contains("unreachable"), out);
    }

    @Test
    void logLevelDebugLetsTheLibrariesLogInTheCommandsOneLineFormat() throws Exception {
        String out = connect(Map.of(), "--log-level=debug");
        assertLibrariesLogged(out);
    }

    @Test
    void theEnvironmentSetsTheLevelAndTheOptionWins() throws Exception {
        assertLibrariesLogged(connect(Map.of(BlockxferCli.LOG_LEVEL_ENV, "debug")));

        // before the command's name, as after it
        try (CliProcess cli = CliProcess.start(List.of(), Map.of(BlockxferCli.LOG_LEVEL_ENV, "debug"), "--log-level",
                "off", "bench", "--connect", "--directory", endpoints(), "--prefix", PREFIX)) {
            assertEquals(1, cli.awaitExit(EXIT), cli::output);
            assertEquals(List.of(noServer()), cli.output().lines().toList(), cli::output);
        }
    }

    /**
     * Debug lines of gRPC, Netty, Vert.x or jetcd, each one line of the command's format, and
     * nothing else foreign (no SLF4J line, no JDK warning, no stack trace), and the answer.
     */
    private static void assertLibrariesLogged(String out) {
        List<String> lines = out.lines().toList();
        assertTrue(lines.stream().anyMatch(l -> LIBRARY_DEBUG.matcher(l).find()), out);
        assertEquals(List.of(), lines.stream().filter(l -> !OwnLines.isLibraryLogLine(l))
                .filter(OwnLines::isForeign).toList(), out);
        assertTrue(lines.contains(noServer()), out);
    }

    /** A level the option does not know is a usage error naming the levels it does. */
    @Test
    void anUnknownLevelIsAUsageError() {
        Cli.Result r = Cli.run("bench", "--log-level", "loud");
        assertEquals(2, r.exitCode(), r::toString);
        assertEquals(List.of("blockxfer bench: Invalid value for option '--log-level': unknown log level 'loud': use"
                + " off, error, warn, info, debug, trace or all (see 'blockxfer bench --help')"), r.errLines());
    }
}
