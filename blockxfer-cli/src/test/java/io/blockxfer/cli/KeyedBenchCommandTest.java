package io.blockxfer.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.cli.internal.KeyFile;
import io.blockxfer.cli.internal.KeyFiles;
import io.blockxfer.cli.internal.remote.BenchServer;
import io.blockxfer.cli.internal.remote.ServerConfig;
import io.blockxfer.transport.Transports;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --key-file} on the command line: each mismatch between initiator and server (a key on one
 * side only, another key id, the same id with another key) and each bad key file is one short line
 * naming the problem and exit status 1, with the long form only under {@code --verbose}. The
 * servers here run in this JVM and fail the session before any backend is opened, so no native
 * library is needed.
 */
class KeyedBenchCommandTest {

    @TempDir
    Path dir;

    private final StringWriter log = new StringWriter();
    private BenchServer server;
    private Thread serving;

    /** A bench server in this JVM, keyed with {@code keyFile} or not. */
    private String serve(Path keyFile) {
        Optional<KeyFile> keys = Optional.ofNullable(keyFile).map(p -> KeyFile.load(p, false));
        ServerConfig config = new ServerConfig(Transports.providers(getClass().getClassLoader()), List.of(), Map.of(),
                64L << 20, keys);
        server = BenchServer.bind(new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), 0), config, new PrintWriter(log, true));
        serving = Thread.ofPlatform().name("bench-server-under-test").start(server::serve);
        return "127.0.0.1:" + server.address().getPort();
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (server != null) {
            server.stop();
            assertTrue(server.awaitStopped(Duration.ofSeconds(30)), "the server stops");
            serving.join(10_000);
        }
    }

    /** Runs the command; asserts exit 1 and one short line without a stack trace; returns that line. */
    private static String failsWithOneLine(String... args) {
        Cli.Result r = Cli.run(args);
        assertEquals(1, r.exitCode(), r::toString);
        assertEquals(1, r.errLines().size(), () -> "not one line: " + r);
        assertTrue(r.errLines().getFirst().length() < 240, () -> "not short: " + r);
        assertFalse(r.err().contains("\tat ") || r.err().contains("Exception"), () -> "stack trace or type: " + r);
        return r.errLines().getFirst();
    }

    private static String[] with(String[] args, String... more) {
        String[] all = new String[args.length + more.length];
        System.arraycopy(args, 0, all, 0, args.length);
        System.arraycopy(more, 0, all, args.length, more.length);
        return all;
    }

    private static List<String> verboseDetail(String... args) {
        Cli.Result r = Cli.run(with(args, "--verbose"));
        assertEquals(1, r.exitCode(), r::toString);
        return r.errLines().subList(1, r.errLines().size());
    }

    private String awaitLog(String text) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!log.toString().contains(text)) {
            if (System.nanoTime() > end) {
                throw new AssertionError("no '" + text + "' in the server's log:\n" + log);
            }
            Thread.sleep(20);
        }
        return log.toString();
    }

    @Test
    void aKeyedInitiatorRefusesAServerWithoutAKey() throws Exception {
        String at = serve(null);
        String[] args = {"bench", "--connect", at, "--key-file", KeyFiles.fresh(dir, "a.key", "k1").toString()};
        assertEquals("blockxfer bench: the bench server at " + at + " has no deployment key, but this side has one:"
                + " start both sides with the same key file, or neither", failsWithOneLine(args));
        assertTrue(String.join("\n", verboseDetail(args)).contains("anyone who can reach its port can drive it"));
        awaitLog("the client refused the session: this client holds a deployment key and will not use a server"
                + " without one");
    }

    @Test
    void anInitiatorWithoutAKeyIsToldTheServerRequiresOne() throws Exception {
        String at = serve(KeyFiles.fresh(dir, "server.key", "k1"));
        String[] args = {"bench", "--connect", at};
        assertEquals("blockxfer bench: the bench server at " + at + " requires a deployment key: give this side its"
                + " key file with --key-file or BLOCKXFER_KEY_FILE", failsWithOneLine(args));
        assertEquals(List.of("the server accepts the key ids [k1]; this side has no key file"), verboseDetail(args)
                .stream().map(String::strip).toList());
        awaitLog("the client went away before its hello");
    }

    @Test
    void keysUnderOtherIdsAreNamed() throws IOException {
        String at = serve(KeyFiles.fresh(dir, "server.key", "k2"));
        assertEquals("blockxfer bench: the bench server at " + at + " does not hold this side's key 'k1' (it accepts"
                + " k2): use the same key file on both hosts", failsWithOneLine("bench", "--connect", at,
                "--key-file", KeyFiles.fresh(dir, "client.key", "k1").toString()));
    }

    @Test
    void anotherKeyUnderTheSameIdIsNamed() throws Exception {
        String at = serve(KeyFiles.fresh(dir, "server.key", "k1"));
        assertEquals("blockxfer bench: the bench server at " + at + " rejected this side's key 'k1': it holds a"
                + " different key under that id; use the same key file on both hosts", failsWithOneLine("bench",
                "--connect", at, "--key-file", KeyFiles.fresh(dir, "client.key", "k1").toString()));
        awaitLog("refused: the client's first frame is not authenticated by any key of this server [k1]");
    }

    @Test
    void aKeyFileOthersCanReadIsRefusedOnBothSides() throws Exception {
        Path open = KeyFiles.write(dir, "open.key", "rw-r--r--", KeyFiles.line("k1", KeyFiles.random(32)));
        String expected = "blockxfer bench: key file " + open + " is accessible by group or others (rw-r--r--); a key"
                + " file must be private to its owner: chmod 600 " + open;
        assertEquals(expected, failsWithOneLine("bench", "--connect", "127.0.0.1:9", "--key-file", open.toString()));
        assertEquals(expected, failsWithOneLine("bench", "--serve", "--listen", "127.0.0.1:0", "--key-file",
                open.toString()));
        assertEquals(expected, failsWithOneLine("bench", "--key-file", open.toString()));
    }

    @Test
    void aShortKeyIsRefused() throws Exception {
        Path shortKey = KeyFiles.write(dir, "short.key", "rw-------", KeyFiles.line("k1", KeyFiles.random(16)));
        assertTrue(failsWithOneLine("bench", "--serve", "--listen", "127.0.0.1:0", "--key-file", shortKey.toString())
                .startsWith("blockxfer bench: key file " + shortKey + ", line 1: key 'k1' has 16 bytes; at least 32"
                        + " random bytes are needed"));
    }

    @Test
    void theChildTargetOfTwoProcessesCannotHoldAKey() throws IOException {
        Cli.Result r = Cli.run("bench", "--processes", "2", "--key-file", KeyFiles.fresh(dir, "k.key", "k1")
                .toString());
        assertEquals(2, r.exitCode(), r::toString);
        assertEquals(List.of("blockxfer bench: --processes 2 cannot use a deployment key: the target process cannot"
                + " hold one; use --processes 1, or --serve and --connect"),
                r.errLines());
    }

    @Test
    void theLocalBenchSignsAndChecksDescriptorsWithTheKey() throws IOException {
        Cli.Result r = Cli.run("bench", "--key-file", KeyFiles.fresh(dir, "k.key", "k1").toString(), "--ops", "write",
                "--block-sizes", "4K", "--batches", "1", "--window", "1", "--duration", "20ms");
        assertEquals(0, r.exitCode(), r::toString);
        assertTrue(r.out().startsWith("blockxfer bench: both peers in this process, descriptors authenticated with"
                + " key 'k1',"), r::toString);
    }
}
