package io.blockxfer.cli.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.tck.process.EtcdCluster;
import io.blockxfer.tck.process.EtcdGrpcProxy;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fleet benchmark ({@code scripts/bench-membership --fleet}, {@link MembershipScaleBench}) in
 * small: 12 on-demand members in one worker JVM, every 4 sharing one etcd connection, each
 * resolving 8 partners, against a real one-member etcd, directly and through etcd's gRPC proxy;
 * it checks what the benchmark's figures rest on: every resolution completes, etcd holds one watch
 * stream per connection (not per watch) and a watcher per watch, and a resolution, a directory read
 * and a get are each measured.
 */
// full tier: two runs of the benchmark, each with an etcd (one with its gRPC proxy) and a worker JVM
// of its own, about 30 s together; the fast tier's EtcdWatchStreamTest covers one stream per connection
@Tag("full")
class MembershipFleetSmokeTest {

    private static final int MEMBERS = 12;
    private static final int PER_CONNECTION = 4;

    @Test
    void directlyEveryConnectionIsOneWatchStreamAndEveryResolutionCompletes(@TempDir Path dir) throws Exception {
        try (EtcdCluster etcd = EtcdCluster.start(1)) {
            Properties r = bench(dir, etcd.endpoints(), etcd.pid(0), List.of());
            assertCommon(r);
            assertEquals("direct", r.getProperty("route"));
            // one stream per connection: 3, whatever the 9 watches of each of the 12 members
            assertEquals(MEMBERS / PER_CONNECTION, number(r, "etcd.watch.streams"), 0.0, r.toString());
            assertEquals(9.0 * MEMBERS, number(r, "etcd.watchers"), 0.0, r.toString());
        }
    }

    @Test
    void throughTheProxyEveryResolutionCompletesAndEtcdHoldsNoMoreStreams(@TempDir Path dir) throws Exception {
        try (EtcdCluster etcd = EtcdCluster.start(1); EtcdGrpcProxy proxy = EtcdGrpcProxy.start(etcd)) {
            Properties r = bench(dir, proxy.endpoints(), etcd.pid(0), List.of("--proxy-pid",
                    Long.toString(proxy.pid()), "--etcd-metrics", "http://127.0.0.1:" + etcd.clientPort(0)
                            + "/metrics"));
            assertCommon(r);
            assertEquals("proxy", r.getProperty("route"));
            // the proxy's own streams to etcd; it coalesces the watches of one key
            assertTrue(number(r, "etcd.watch.streams") <= MEMBERS / PER_CONNECTION, r.toString());
            assertTrue(number(r, "etcd.watchers") <= 9.0 * MEMBERS, r.toString());
            assertTrue(number(r, "proxy.rss.mib") > 0, r.toString());
        }
    }

    private static void assertCommon(Properties r) {
        assertEquals("true", r.getProperty("cold.converged"), r.toString());
        assertEquals(8 * MEMBERS + "/" + 8 * MEMBERS, r.getProperty("cold.progress"), r.toString());
        assertEquals(0.0, number(r, "failures"), 0.0, r.toString());
        // no connection closed by etcd for too many pings (the workers count gRPC's GOAWAY warnings)
        assertEquals(0.0, number(r, "ping.goaways"), 0.0, r.toString());
        assertEquals(MEMBERS / PER_CONNECTION, number(r, "connections"), 0.0, r.toString());
        for (String measured : List.of("resolve.probe.count", "get.count", "read.count")) {
            assertTrue(number(r, measured) > 0, measured + ": " + r);
        }
        assertTrue(number(r, "keepalives.per.second") >= 0, r.toString());
    }

    private static Properties bench(Path dir, String endpoints, long etcdPid, List<String> route) throws Exception {
        Path result = dir.resolve("result.properties");
        List<String> args = new ArrayList<>(List.of("--endpoints", endpoints, "--etcd-pid", Long.toString(etcdPid),
                "--classpath", System.getProperty("java.class.path"), "--mode", "on-demand", "--members",
                Integer.toString(MEMBERS), "--jvms", "1", "--per-connection", Integer.toString(PER_CONNECTION), "--ttl",
                "10", "--rate", "20", "--steady", "2", "--joins", "1", "--probes", "5", "--xmx", "256m",
                "--converge-timeout", "120", "--logs", dir.toString(), "--result", result.toString()));
        args.addAll(route);
        MembershipScaleBench.main(args.toArray(String[]::new));
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(result)) {
            p.load(in);
        } catch (IOException e) {
            throw new AssertionError("no result from the bench in " + dir, e);
        }
        return p;
    }

    private static double number(Properties p, String key) {
        String v = p.getProperty(key);
        if (v == null) {
            throw new AssertionError("no " + key + " in the result: " + p);
        }
        return Double.parseDouble(v);
    }
}
