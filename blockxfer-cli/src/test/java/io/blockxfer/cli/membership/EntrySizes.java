package io.blockxfer.cli.membership;

import io.blockxfer.directory.MemberEntry;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.ProviderInfo;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import java.security.SecureRandom;
import java.util.List;
import java.util.Locale;

/**
 * The bytes a member's directory entry takes, per available backend and region geometry: the
 * backend's metadata, the encoded descriptor, and the {@link MemberEntry} around it, unsigned and
 * signed ({@code scripts/bench-membership --entry-sizes}). The figures the scale arithmetic of
 * {@code transport-directory/README.md} uses.
 *
 * <p><b>Thread safety:</b> a program.
 */
public final class EntrySizes {

    private EntrySizes() {
    }

    /** Prints one row per backend and geometry. */
    public static void main(String[] args) {
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        DeploymentKeyRing ring = DeploymentKeyRing.of("k1", key);
        String id = "worker-0123.rack-17.example";
        System.out.println(String.format(Locale.ROOT, "%-9s %7s %9s %9s %11s %13s %13s", "backend", "blocks",
                "block", "metadata", "descriptor", "entry", "entry signed"));
        for (ProviderInfo p : Transports.providers()) {
            if (!p.isAvailable()) {
                System.out.println(p.name() + ": not available here (" + p.describe() + ")");
                continue;
            }
            for (int[] geometry : List.of(new int[] {16, 64 << 10}, new int[] {1024, 64 << 10},
                    new int[] {256, 256 << 10})) {
                try (DataTransport t = Transports.open(TransportConfig.builder(RegionSpec.allocate(geometry[0],
                        geometry[1])).transport(p.name()).agentName("sizes-" + p.name()).build())) {
                    PeerDescriptor d = t.localDescriptor();
                    byte[] unsigned = MemberEntry.of(id, 1_764_000_000_000_000L, d).encode(null);
                    byte[] signed = MemberEntry.of(id, 1_764_000_000_000_000L, d.signedWith(ring)).encode(ring);
                    System.out.println(String.format(Locale.ROOT, "%-9s %7d %9s %9d %11d %13d %13d", p.name(),
                            geometry[0], (geometry[1] >> 10) + " KiB", d.metadataLength(), d.encode().length,
                            unsigned.length, signed.length));
                } catch (RuntimeException e) {
                    System.out.println(p.name() + " " + geometry[0] + " x " + geometry[1] + ": " + e);
                }
            }
        }
        System.out.println("member id: " + id.length() + " characters");
    }
}
