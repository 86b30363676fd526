package io.blockxfer.multihost;

import io.blockxfer.loopback.LoopbackFaults;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;

/**
 * A soak target in the initiator's JVM, for a backend that cannot cross processes (loopback): a
 * transport served by a {@link TargetRole}; a kill is {@link LoopbackFaults#kill()}.
 *
 * <p><b>Thread safety:</b> thread-safe; requests are serialised.
 */
final class TargetInJvm implements SoakTarget {

    private final String name;
    private final long family;
    private final DataTransport transport;
    private final TargetRole role;
    private final PeerDescriptor descriptor;
    private boolean closed;

    private TargetInJvm(String name, long family, DataTransport transport) {
        this.name = name;
        this.family = family;
        this.transport = transport;
        this.role = new TargetRole(transport);
        this.descriptor = transport.localDescriptor();
    }

    /** Opens a target of {@code blocks} blocks, filled with the patterns of {@code family}. */
    static TargetInJvm open(String backend, String name, int blocks, long blockLength, Duration transferTimeout,
            Map<String, String> options, long family) {
        TransportConfig config = TransportConfig.builder(RegionSpec.allocate(blocks, blockLength))
                .agentName(name).transferTimeout(transferTimeout).options(options).build();
        DataTransport transport = Transports.select(backend, TargetInJvm.class.getClassLoader()).open(config);
        TargetInJvm target = new TargetInJvm(name, family, transport);
        target.request("FILLALL " + family);
        return target;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public PeerDescriptor descriptor() {
        return descriptor;
    }

    @Override
    public long family() {
        return family;
    }

    @Override
    public long pid() {
        return -1;
    }

    @Override
    public synchronized EventFields request(String command) {
        try {
            return EventFields.parse("R OK " + role.handle(command.split(" ", -1)));
        } catch (RuntimeException e) {
            throw new IllegalStateException(name + ": " + command.split(" ", -1)[0] + " failed: " + e, e);
        }
    }

    /** The fault injection of this target's transport. */
    LoopbackFaults faults() {
        return transport.feature(LoopbackFaults.class)
                .orElseThrow(() -> new IllegalStateException(name + ": backend has no LoopbackFaults"));
    }

    @Override
    public void kill() {
        transport.feature(LoopbackFaults.class)
                .orElseThrow(() -> new IllegalStateException(name + ": backend has no LoopbackFaults"))
                .kill();
    }

    @Override
    public Set<Path> shmFiles() {
        return Set.of();
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            role.close();
        }
    }

    @Override
    public boolean forcedAtClose() {
        return false;
    }

    @Override
    public String toString() {
        return name;
    }
}
