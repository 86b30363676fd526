package io.blockxfer.directory.etcd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.directory.DirectoryWatch;
import io.blockxfer.directory.Publication;
import io.blockxfer.directory.PublicationListener;
import io.blockxfer.directory.etcd.EtcdAuthException.Reason;
import io.blockxfer.tck.process.EtcdCluster;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * etcd's authentication against a real etcd with auth enabled (one member for the class, plain
 * text: TLS with auth is {@link EtcdTlsTest}'s), with a role per deployment limited to its prefix
 * as {@code etcdctl role grant-permission --prefix=true readwrite} makes it: a wrong password, a
 * user whose roles lack read or write on the prefix, a client without a user, and a user for an
 * etcd without authentication are each refused with their {@link EtcdAuthException.Reason} and a
 * message naming the user, the prefix and what is missing; a second deployment's user can neither
 * read nor write the first's prefix and its directory never sees the first's members; the
 * password comes from a file or etcdctl's variables too.
 */
class EtcdAuthTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final Duration TTL = Duration.ofSeconds(5);

    private static @Nullable EtcdCluster etcd;

    @BeforeAll
    static void startEtcd() {
        etcd = EtcdCluster.builder(1).auth().start();
        etcd.addUser("alice", "alice-pw", "/a/");
        etcd.addUser("bob", "bob-pw", "/b/");
        etcd.addUser("reader", "reader-pw", "/a/", "READ");
    }

    @AfterAll
    static void stopEtcd() {
        if (etcd != null) {
            etcd.close();
        }
    }

    private static EtcdCluster etcd() {
        assertTrue(etcd != null, "etcd runs");
        return etcd;
    }

    private static EtcdDirectory.Builder as(String user, String password, String prefix) {
        return EtcdDirectory.builder(etcd().endpoints()).prefix(prefix).operationTimeout(TIMEOUT).user(user)
                .password(password.toCharArray());
    }

    private static EtcdAuthException refused(Reason reason, Executable call) {
        long start = System.nanoTime();
        EtcdAuthException e = assertThrows(EtcdAuthException.class, call);
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertEquals(reason, e.reason(), e.getMessage());
        assertTrue(millis < TIMEOUT.toMillis() + 1000, "refused after " + millis + " ms: " + e.getMessage());
        return e;
    }

    @Test
    void aWrongPasswordIsRefusedAtBuildNamingTheUser() {
        EtcdAuthException e = refused(Reason.AUTHENTICATION_FAILED, () -> as("alice", "wrong", "/a/").build());
        assertTrue(e.getMessage().contains("user 'alice'"), e.getMessage());
        e = refused(Reason.AUTHENTICATION_FAILED, () -> as("nobody", "pw", "/a/").build());
        assertTrue(e.getMessage().contains("user 'nobody'"), e.getMessage());
    }

    @Test
    void aRoleWithoutReadOrWriteOnThePrefixIsRefusedAtBuildSayingWhatIsMissing() {
        EtcdAuthException e = refused(Reason.PERMISSION_DENIED, () -> as("bob", "bob-pw", "/a/").build());
        assertTrue(e.getMessage().contains("user 'bob' may not read keys under /a/"), e.getMessage());
        assertTrue(e.getMessage().contains("etcdctl role grant-permission ROLE --prefix=true readwrite /a/"),
                e.getMessage());
        e = refused(Reason.PERMISSION_DENIED, () -> as("reader", "reader-pw", "/a/").build());
        assertTrue(e.getMessage().contains("user 'reader' may not write keys under /a/"), e.getMessage());
    }

    @Test
    void aSecondDeploymentCanNeitherReadNorWriteTheFirstsPrefixNorSeeItsMembers() throws Exception {
        try (EtcdDirectory a = as("alice", "alice-pw", "/a/").build();
                EtcdDirectory b = as("bob", "bob-pw", "/b/").build();
                Publication a1 = a.publish("a1", new byte[] {1}, TTL, PublicationListener.NONE);
                Publication b1 = b.publish("b1", new byte[] {2}, TTL, PublicationListener.NONE)) {
            Recorder seenByB = new Recorder();
            try (DirectoryWatch _ = b.watch(seenByB)) {
                seenByB.awaitView(v -> v.containsKey("/b/b1"), TTL, "b1");
                Publication a2 = a.publish("a2", new byte[] {3}, TTL, PublicationListener.NONE);
                Publication b2 = b.publish("b2", new byte[] {4}, TTL, PublicationListener.NONE);
                seenByB.awaitView(v -> v.containsKey("/b/b2"), TTL, "b2");
                a2.close();
                b2.close();
                assertTrue(seenByB.view().keySet().stream().allMatch(k -> k.startsWith("/b/")),
                        seenByB.view().keySet().toString());
                assertTrue(seenByB.events().stream().allMatch(ev -> ev.key().startsWith("/b/")), seenByB.describe());
            }
            assertFalse(a1.isLost() || b1.isLost());
            // bob's own client, straight to etcd: neither read nor write under /a/
            try (Client bob = Client.builder().endpoints(EtcdEndpoints.parse(etcd().endpoints()).uris())
                    .user(bytes("bob")).password(bytes("bob-pw")).build()) {
                ExecutionException read = assertThrows(ExecutionException.class, () -> bob.getKVClient()
                        .get(bytes("/a/"), GetOption.builder().isPrefix(true).build()).get(10, TimeUnit.SECONDS));
                assertTrue(String.valueOf(read.getCause().getMessage()).contains("permission denied"), read.toString());
                ExecutionException write = assertThrows(ExecutionException.class, () -> bob.getKVClient()
                        .put(bytes("/a/a1"), bytes("forged")).get(10, TimeUnit.SECONDS));
                assertTrue(String.valueOf(write.getCause().getMessage()).contains("permission denied"),
                        write.toString());
            }
            // and bob's directory on alice's prefix is refused when built
            refused(Reason.PERMISSION_DENIED, () -> as("bob", "bob-pw", "/a/").build());
        }
    }

    @Test
    void aClientWithoutAUserIsRefusedAtItsFirstCall() {
        try (EtcdDirectory d = EtcdDirectory.builder(etcd().endpoints()).prefix("/a/").operationTimeout(TIMEOUT)
                .build()) {
            EtcdAuthException e = refused(Reason.NO_USER, () -> d.publish("m", new byte[1], TTL,
                    PublicationListener.NONE));
            assertTrue(e.getMessage().contains("a client without a user"), e.getMessage());
        }
    }

    @Test
    void thePasswordComesFromAFileOrFromEtcdctlsVariables(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("password"), "alice-pw\n");
        List<String> warnings;
        try (LoggedLines logged = LoggedLines.of(EtcdDirectory.class)) {
            try (EtcdDirectory d = as("alice", "ignored", "/a/").passwordFile(file).build()) {
                assertEquals("/a/", d.prefix());
            }
            warnings = logged.lines();
        }
        // a user over plain text says that its password crosses the network in clear
        assertTrue(warnings.stream().anyMatch(w -> w.startsWith("WARNING etcd user 'alice' authenticates over plain"
                + " text")), warnings.toString());
        String endpoints = "http://127.0.0.1:" + etcd().clientPort(0);
        try (EtcdDirectory d = EtcdDirectory.fromEnvironment(Map.of("ETCDCTL_ENDPOINTS", endpoints,
                "ETCDCTL_USER", "alice:alice-pw")).prefix("/a/").build()) {
            assertEquals(EtcdEndpoints.parse(endpoints), d.endpoints());
        }
        try (EtcdDirectory d = EtcdDirectory.fromEnvironment(Map.of("ETCDCTL_ENDPOINTS", endpoints,
                "ETCDCTL_USER", "alice", "ETCDCTL_PASSWORD", "alice-pw")).prefix("/a/").build()) {
            assertEquals("/a/", d.prefix());
        }
        refused(Reason.AUTHENTICATION_FAILED, () -> EtcdDirectory.fromEnvironment(Map.of("ETCDCTL_ENDPOINTS",
                endpoints, "ETCDCTL_USER", "alice:nope")).prefix("/a/").build());
    }

    @Test
    void aUserForAnEtcdWithoutAuthenticationIsRefused() {
        try (EtcdCluster open = EtcdCluster.start(1)) {
            EtcdAuthException e = refused(Reason.AUTH_NOT_ENABLED, () -> EtcdDirectory.builder(open.endpoints())
                    .prefix("/a/").operationTimeout(TIMEOUT).user("alice").password("pw".toCharArray()).build());
            assertTrue(e.getMessage().contains("etcdctl auth enable"), e.getMessage());
        }
    }

    private static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }
}
