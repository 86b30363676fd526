package io.blockxfer.nixl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.tck.process.ChildJvm;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PeerRegistrationException;
import io.blockxfer.transport.TransportException;
import java.io.FileInputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A native resource running out is reported as such: in a child JVM whose file descriptors are
 * used up (a low {@code ulimit -n}, then files held open), adding a valid peer fails with a
 * {@link PeerRegistrationException} that names file-descriptor exhaustion, never with
 * "malformed"; once descriptors are free again the same peer is added.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NixlResourceExhaustionTest {

    private static final Duration CHILD_TIME = Duration.ofSeconds(90);

    @Test
    void fileDescriptorExhaustionIsAPeerRegistrationErrorNamingIt() throws Exception {
        NixlTests.assumeNixl();
        List<String> lines = new ArrayList<>();
        String out;
        try (ChildJvm child = ChildJvm.builder(Child.class)
                .launcher(List.of("bash", "-c", "ulimit -n 1024 && exec \"$0\" \"$@\""))
                .forwardSystemProperties(key -> key.equals("blockxfer.natives.dir")).start()) {
            for (Optional<String> line = child.nextLineIfAny(CHILD_TIME); line.isPresent();
                    line = child.nextLineIfAny(CHILD_TIME)) {
                lines.add(line.get());
            }
            out = String.join("\n", lines);
            assertEquals(0, child.awaitExit(CHILD_TIME), out + "\n" + child.describe());
        }
        assertTrue(out.contains("EXHAUSTED " + PeerRegistrationException.class.getSimpleName())
                && out.contains("file descriptors exhausted"), out);
        assertTrue(out.contains("RECOVERED"), out);
    }

    /** Uses up the descriptors, then adds a peer; prints what happened. */
    public static final class Child {
        private Child() {
        }

        public static void main(String[] args) throws IOException {
            try (DataTransport a = NixlTests.open(NixlTests.config("fd-a", 4, 4096).build());
                    DataTransport b = NixlTests.open(NixlTests.config("fd-b", 4, 4096).build())) {
                List<FileInputStream> hog = new ArrayList<>();
                try {
                    while (true) {
                        hog.add(new FileInputStream("/dev/null"));
                    }
                } catch (IOException expected) {
                    // the limit is reached
                }
                try {
                    a.addPeer("b", b.localDescriptor());
                    System.out.println("ADDED with descriptors exhausted");
                } catch (TransportException e) {
                    System.out.println("EXHAUSTED " + e.getClass().getSimpleName() + ": " + e.getMessage());
                }
                for (FileInputStream f : hog) {
                    f.close();
                }
                a.addPeer("b", b.localDescriptor());
                System.out.println("RECOVERED");
            }
        }
    }
}
