package io.blockxfer.examples;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** docs/trust-model.md: a deployment key ring that signs this transport's descriptor and checks its peers'. Stateless. */
public final class TrustModel {

    private TrustModel() {
    }

    /**
     * Builds a key ring that signs with the key in {@code keyFile} and still accepts the key in
     * {@code previousKeyFile}, a config that uses it, and registers {@code theirs} on
     * {@code transport} only if a key of that ring signed it.
     *
     * @param keyFile the signing key, at least 32 random bytes
     * @param previousKeyFile the key being rotated out
     * @param region the region of the config
     * @param transport a transport opened with such a config
     * @param theirs the peer's encoded descriptor
     * @return the config with the ring
     * @throws IOException if a key file cannot be read
     */
    public static TransportConfig keyRing(Path keyFile, Path previousKeyFile, RegionSpec region,
            DataTransport transport, byte[] theirs) throws IOException {
        // @start region="key-ring"
        DeploymentKeyRing keys = DeploymentKeyRing.of("2026-05", Files.readAllBytes(keyFile))   // >= 32 random bytes
                .withVerificationKey("2026-02", Files.readAllBytes(previousKeyFile));           // while rotating
        TransportConfig config = TransportConfig.builder(region).keyRing(keys).build();
        // ...
        transport.addPeer("decode-3", PeerDescriptor.decode(theirs, keys));   // UnauthenticatedPeerException if not vouched for
        // @end region="key-ring"
        return config;
    }
}
