package io.blockxfer.tck.directory;

import io.blockxfer.directory.Directory;
import io.blockxfer.directory.DirectoryEntry;
import io.blockxfer.directory.DirectorySnapshot;
import io.blockxfer.directory.PublicationListener;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;

/**
 * The base of the directory suite's rule groups: gives each rule the fixture its suite opened.
 *
 * <p><b>Thread safety:</b> JUnit makes one instance per rule; not shared.
 */
abstract class DirectoryRuleGroup {

    private final DirectoryConformanceSuite suite;

    DirectoryRuleGroup(DirectoryConformanceSuite suite) {
        this.suite = Objects.requireNonNull(suite, "suite");
    }

    /** The fixture of the running rule. */
    final DirectoryFixture fx() {
        return suite.fixture();
    }

    /** Skips the rule, with the reason, unless the deployment can cause {@code fault} (besides the rule's own). */
    final void require(DirectoryFault fault) {
        DirectoryFixture fx = fx();
        Assumptions.assumeTrue(fx.deployment.faults().contains(fault),
                () -> fx.msg("skipped: the deployment cannot cause " + fault));
    }

    /** {@code s} in UTF-8. */
    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** The entry of {@code key} in {@code s}, or null. */
    static @Nullable DirectoryEntry entry(DirectorySnapshot s, String key) {
        return s.entries().stream().filter(e -> e.key().equals(key)).findFirst().orElse(null);
    }

    /** Publishes a marker from {@code client} and waits until every log saw it: everything before it was delivered. */
    static void sync(DirectoryFixture fx, Directory client, WatchLog... logs) throws InterruptedException {
        String id = "marker-" + System.nanoTime();
        client.publish(id, bytes("marker"), DirectoryFixture.TTL, PublicationListener.NONE);
        for (WatchLog log : logs) {
            log.awaitPut(client.prefix() + id, fx.msg("the watch did not see the marker " + id));
        }
    }
}
