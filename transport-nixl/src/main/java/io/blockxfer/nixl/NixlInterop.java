package io.blockxfer.nixl;

import io.blockxfer.nixl.internal.NixlMetadata;
import io.blockxfer.transport.MalformedPeerDescriptorException;
import io.blockxfer.transport.PeerDescriptor;
import java.util.Objects;

/**
 * Bridges blockxfer's {@code nixl} transports and plain NIXL agents, such as Python's
 * {@code nixl_agent} in vLLM, that exchange NIXL's own metadata blobs rather than blockxfer peer
 * descriptors.
 *
 * <ul>
 *   <li>To let a plain NIXL agent reach a blockxfer transport, hand it
 *       {@link #nixlMetadata(byte[]) nixlMetadata(transport.agentMetadata())} (Python:
 *       {@code agent.add_remote_agent(blob)}) together with the region's base address, block
 *       count and block length.</li>
 *   <li>To add a plain NIXL agent as a peer, build its descriptor with
 *       {@link #peerDescriptor}: NIXL's blob ({@code agent.get_agent_metadata()} in Python) and
 *       the geometry of the region it registered.</li>
 * </ul>
 * Blobs are validated strictly either way (NIXL 1.5.1's layout, read to the last byte), and the
 * geometry must lie inside memory the agent registered.
 *
 * <p><b>Thread safety:</b> stateless.
 */
public final class NixlInterop {

    private NixlInterop() {
    }

    /**
     * NIXL's own metadata blob inside a {@code nixl} transport's agent metadata.
     *
     * @throws MalformedPeerDescriptorException if {@code agentMetadata} is not valid NIXL metadata
     */
    public static byte[] nixlMetadata(byte[] agentMetadata) {
        Objects.requireNonNull(agentMetadata, "agentMetadata");
        return NixlMetadata.parse(agentMetadata).nixlBlob().clone();
    }

    /**
     * The NIXL agent name inside agent metadata, framed or plain.
     *
     * @throws MalformedPeerDescriptorException if {@code metadata} is not valid NIXL metadata
     */
    public static String agentName(byte[] metadata) {
        Objects.requireNonNull(metadata, "metadata");
        return NixlMetadata.parse(metadata).agentName();
    }

    /**
     * A descriptor for a plain NIXL agent, to pass to {@code addPeer}.
     *
     * @param nixlMetadata the agent's metadata as NIXL produced it
     * @param fingerprint the config fingerprint both sides agree on ({@code ""} for none)
     * @param baseAddress the address of the agent's block 0
     * @param numBlocks its block count
     * @param blockLength its block length in bytes
     * @throws MalformedPeerDescriptorException if the blob is not valid NIXL metadata
     * @throws IllegalArgumentException if the geometry is out of range or outside the memory the
     *     agent registered
     */
    public static PeerDescriptor peerDescriptor(byte[] nixlMetadata, String fingerprint, long baseAddress,
            int numBlocks, long blockLength) {
        Objects.requireNonNull(nixlMetadata, "nixlMetadata");
        NixlMetadata md = NixlMetadata.parse(nixlMetadata);
        PeerDescriptor d = new PeerDescriptor(NixlProvider.NAME, fingerprint, baseAddress, numBlocks, blockLength,
                nixlMetadata);
        if (md.dramRegionHolding(baseAddress, (long) numBlocks * blockLength).isEmpty()) {
            throw new IllegalArgumentException(numBlocks + " x " + blockLength + " B at 0x"
                    + Long.toHexString(baseAddress) + " is not inside memory agent '" + md.agentName()
                    + "' registered: " + md.regions());
        }
        return d;
    }
}
