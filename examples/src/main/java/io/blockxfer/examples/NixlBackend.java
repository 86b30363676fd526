package io.blockxfer.examples;

import io.blockxfer.nixl.NixlInterop;
import io.blockxfer.nixl.NixlTelemetry;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;

/** transport-nixl/README.md: plain NIXL peers, key rings that accept them, and telemetry. Stateless. */
public final class NixlBackend {

    private NixlBackend() {
    }

    /**
     * Registers a Python NIXL agent from its metadata and its buffer's geometry.
     *
     * @param transport a NIXL transport
     * @param md the agent's metadata, {@code agent.get_agent_metadata()}
     * @param base the address of its block 0
     * @param numBlocks its blocks
     * @param blockLen the length of a block
     */
    public static void pythonPeer(DataTransport transport, byte[] md, long base, int numBlocks, long blockLen) {
        // @start region="python-peer"
        // Python: md = agent.get_agent_metadata(); publish md, buf.ctypes.data, num_blocks, block_len
        PeerDescriptor py = NixlInterop.peerDescriptor(md, transport.configFingerprint(), base, numBlocks, blockLen);
        transport.addPeer("py", py);
        // the other way: Python agent.add_remote_agent(NixlInterop.nixlMetadata(transport.agentMetadata()))
        // @end region="python-peer"
    }

    /**
     * A config whose key ring signs blockxfer peers and still accepts unsigned NIXL peers, and the
     * registration of such a peer on a transport opened with it.
     *
     * @param region the region
     * @param keys the deployment's key ring
     * @param transport a NIXL transport opened with the config
     * @param md the plain agent's metadata
     * @param base the address of its block 0
     * @param n its blocks
     * @param len the length of a block
     * @return the config
     */
    public static TransportConfig unsignedPeers(RegionSpec region, DeploymentKeyRing keys, DataTransport transport,
            byte[] md, long base, int n, long len) {
        // @start region="unsigned-peers"
        TransportConfig config = TransportConfig.builder(region)
                .keyRing(keys)                 // blockxfer peers must be signed with one of these keys
                .acceptUnsignedPeers(true)     // ... but unsigned (plain NIXL) peers are accepted too
                .build();
        transport.addPeer("py", NixlInterop.peerDescriptor(md, transport.configFingerprint(), base, n, len));
        // @end region="unsigned-peers"
        return config;
    }

    /**
     * Reads a NIXL transport's recent transfers and totals.
     *
     * @param transport a NIXL transport
     */
    public static void telemetry(DataTransport transport) {
        // @start region="telemetry"
        NixlTelemetry t = transport.feature(NixlTelemetry.class).orElseThrow();
        t.recent(10);   // newest first: peer, op, blocks, start/post/transfer µs, bytes, descriptors (after merging)
        t.totals();     // count, bytes, descriptors, summed and max durations
        // @end region="telemetry"
    }
}
