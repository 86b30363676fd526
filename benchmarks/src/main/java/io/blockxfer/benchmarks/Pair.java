package io.blockxfer.benchmarks;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import io.blockxfer.transport.spi.TransportProvider;

/**
 * Two transports of one backend in this JVM, the target registered with the initiator as peer
 * {@value #PEER}; both regions backend-allocated and touched.
 *
 * <p><b>Thread safety:</b> the transports are thread-safe; open and close from one thread.
 */
final class Pair implements AutoCloseable {

    static final String PEER = "target";

    final DataTransport initiator;
    final DataTransport target;

    private Pair(DataTransport initiator, DataTransport target) {
        this.initiator = initiator;
        this.target = target;
    }

    /**
     * Opens a pair of {@code blocks} blocks of {@code blockBytes}.
     *
     * @throws io.blockxfer.transport.TransportUnavailableException if the backend is unavailable
     */
    static Pair open(String backend, int blocks, long blockBytes) {
        TransportProvider provider = Transports.select(backend, Pair.class.getClassLoader());
        DataTransport initiator = provider.open(config(blocks, blockBytes));
        try {
            DataTransport target = provider.open(config(blocks, blockBytes));
            try {
                initiator.addPeer(PEER, target.localDescriptor());
            } catch (RuntimeException e) {
                target.close();
                throw e;
            }
            initiator.region().segment().fill((byte) 1);
            target.region().segment().fill((byte) 2);
            return new Pair(initiator, target);
        } catch (RuntimeException e) {
            initiator.close();
            throw e;
        }
    }

    private static TransportConfig config(int blocks, long blockBytes) {
        return TransportConfig.builder(RegionSpec.allocate(blocks, blockBytes)).build();
    }

    @Override
    public void close() {
        try {
            initiator.close();
        } finally {
            target.close();
        }
    }
}
