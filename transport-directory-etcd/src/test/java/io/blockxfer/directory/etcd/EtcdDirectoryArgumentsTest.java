package io.blockxfer.directory.etcd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.directory.DirectoryLimits;
import io.blockxfer.directory.DirectoryUnavailableException;
import io.blockxfer.directory.PublicationListener;
import io.blockxfer.tck.process.EtcdCluster;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * What needs no etcd: bad arguments, calls after close, and an endpoint where nothing listens,
 * which fails within the operation timeout naming the endpoint.
 */
class EtcdDirectoryArgumentsTest {

    private static final Duration TTL = Duration.ofSeconds(5);

    /** An endpoint where nothing listens: a port that was free a moment ago. */
    private static String nowhere() {
        return "etcd://127.0.0.1:" + EtcdCluster.freePorts(1).getFirst();
    }

    @Test
    void anUnreachableEndpointFailsWithinTheOperationTimeoutNamingIt() {
        String endpoints = nowhere();
        Duration timeout = Duration.ofMillis(1500);
        EtcdDirectory d = EtcdDirectory.builder(endpoints).prefix("/t/").operationTimeout(timeout).build();
        try {
            for (Executable call : List.<Executable>of(
                    () -> d.publish("m1", new byte[8], TTL, PublicationListener.NONE),
                    () -> d.watch(new Recorder()))) {
                long start = System.nanoTime();
                DirectoryUnavailableException e = assertThrows(DirectoryUnavailableException.class, call);
                long millis = (System.nanoTime() - start) / 1_000_000;
                assertTrue(millis >= timeout.toMillis() - 50 && millis <= timeout.toMillis() + 1000,
                        "failed after " + millis + " ms, the timeout being " + timeout.toMillis() + " ms");
                assertTrue(e.getMessage().contains(endpoints), e.getMessage());
                assertTrue(e.getMessage().contains(d.toString()), e.getMessage());
                assertTrue(e.getMessage().contains("1500 ms"), e.getMessage());
            }
            long start = System.nanoTime();
            d.close(); // nothing to revoke: at once
            assertTrue((System.nanoTime() - start) / 1_000_000 < 1000);
        } finally {
            d.close();
        }
    }

    @Test
    void badArgumentsAreRefusedBeforeAnythingIsSent() {
        String endpoints = nowhere();
        assertThrows(IllegalArgumentException.class, () -> EtcdDirectory.builder("etcd://nohost"));
        assertThrows(IllegalArgumentException.class, () -> EtcdDirectory.builder(endpoints).prefix("no-slashes"));
        assertThrows(IllegalArgumentException.class, () -> EtcdDirectory.builder(endpoints).prefix("/a/../b/"));
        assertThrows(IllegalArgumentException.class,
                () -> EtcdDirectory.builder(endpoints).operationTimeout(Duration.ofMillis(99)));
        assertThrows(IllegalArgumentException.class,
                () -> EtcdDirectory.builder(endpoints).operationTimeout(Duration.ofMinutes(6)));
        assertThrows(IllegalArgumentException.class, () -> EtcdDirectory.builder(endpoints).name(" "));
        assertThrows(NullPointerException.class, () -> EtcdDirectory.builder((String) null));
        try (EtcdDirectory d = EtcdDirectory.builder(endpoints).prefix("/t/").build()) {
            assertEquals("/t/", d.prefix());
            assertEquals(EtcdDirectory.DEFAULT_OPERATION_TIMEOUT, d.operationTimeout());
            assertEquals(EtcdEndpoints.parse(endpoints), d.endpoints());
            PublicationListener none = PublicationListener.NONE;
            // each fails at once, before etcd (which is not there) could be asked
            long start = System.nanoTime();
            assertThrows(IllegalArgumentException.class, () -> d.publish("a/b", new byte[1], TTL, none));
            assertThrows(IllegalArgumentException.class, () -> d.publish("", new byte[1], TTL, none));
            assertThrows(IllegalArgumentException.class, () -> d.publish("m", new byte[1], Duration.ofSeconds(1), none));
            assertThrows(IllegalArgumentException.class, () -> d.publish("m", new byte[1], Duration.ofMillis(2500), none));
            assertThrows(IllegalArgumentException.class, () -> d.publish("m", new byte[1], Duration.ofHours(2), none));
            assertThrows(IllegalArgumentException.class,
                    () -> d.publish("m", new byte[DirectoryLimits.MAX_VALUE_BYTES + 1], TTL, none));
            assertThrows(NullPointerException.class, () -> d.publish(null, new byte[1], TTL, none));
            assertThrows(NullPointerException.class, () -> d.publish("m", (byte[]) null, TTL, none));
            assertThrows(NullPointerException.class, () -> d.publish("m", new byte[1], null, none));
            assertThrows(NullPointerException.class, () -> d.publish("m", new byte[1], TTL, null));
            assertThrows(NullPointerException.class, () -> d.watch(null));
            assertTrue((System.nanoTime() - start) / 1_000_000 < 1000);
        }
        try (EtcdDirectory d = EtcdDirectory.builder(endpoints).build()) {
            assertEquals(EtcdDirectory.DEFAULT_PREFIX, d.prefix());
        }
    }

    @Test
    void callsAfterCloseThrow() {
        EtcdDirectory d = EtcdDirectory.builder(nowhere()).prefix("/t/").build();
        d.close();
        d.close();
        assertTrue(d.isClosed());
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> d.publish("m", new byte[1], TTL, PublicationListener.NONE));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> d.watch(new Recorder()));
        // arguments are still checked first
        assertThrows(IllegalArgumentException.class, () -> d.publish("a/b", new byte[1], TTL, PublicationListener.NONE));
        assertEquals("/t/", d.prefix());
    }
}
