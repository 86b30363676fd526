package io.blockxfer.ucx;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.tck.InJvmHarness;
import io.blockxfer.tck.TargetPeer;
import io.blockxfer.tck.TwoProcessHarness;
import java.io.FileInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs out of file descriptors on purpose, then registers a peer (a target in another process,
 * whose segments must be looked up) and opens a transport, printing how each failed
 * ({@code ADD <class>: <message>}, {@code OPEN <class>: <message>}); then frees the descriptors and
 * registers the peer again ({@code RETRY ok}). For {@link UcxResourceExhaustionTest}.
 *
 * <p><b>Thread safety:</b> a program.
 */
public final class ResourceExhaustionRun {

    private ResourceExhaustionRun() {
    }

    /** Runs it. */
    public static void main(String[] args) throws Exception {
        TransportConfig config = TransportConfig.builder(RegionSpec.allocate(16, 4096)).build();
        TwoProcessHarness remote = TwoProcessHarness.of(InJvmHarness.of(UcxProvider.NAME))
                .withJvmArgs(List.of("-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir")));
        try (DataTransport initiator = new UcxProvider().open(config);
                TargetPeer target = remote.openTarget(config)) {
            // a service that has run a while: its classes are loaded (loading one needs a descriptor)
            initiator.addPeer("t", target.descriptor());
            initiator.removePeer("t");
            new UcxProvider().open(config).close();
            List<FileInputStream> hog = new ArrayList<>();
            try {
                while (true) {
                    hog.add(new FileInputStream("/dev/null"));
                }
            } catch (IOException exhausted) {
                System.out.println("EXHAUSTED after " + hog.size() + " files: " + exhausted.getMessage());
            }
            try {
                initiator.addPeer("t", target.descriptor());
                System.out.println("ADD ok");
            } catch (RuntimeException e) {
                System.out.println("ADD " + e.getClass().getName() + ": " + e.getMessage().replace('\n', ' '));
            }
            try (DataTransport other = new UcxProvider().open(config)) {
                System.out.println("OPEN ok " + other.backendName());
            } catch (RuntimeException e) {
                System.out.println("OPEN " + e.getClass().getName() + ": " + e.getMessage().replace('\n', ' '));
            }
            for (FileInputStream f : hog) {
                f.close();
            }
            initiator.addPeer("t", target.descriptor());
            System.out.println("RETRY ok");
        }
    }
}
