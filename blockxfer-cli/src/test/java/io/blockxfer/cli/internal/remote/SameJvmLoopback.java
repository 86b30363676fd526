package io.blockxfer.cli.internal.remote;

import io.blockxfer.loopback.LoopbackProvider;
import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.ProviderInfo;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.spi.Availability;
import io.blockxfer.transport.spi.TransportProvider;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * The real loopback backend, declared {@link Capability#CROSS_PROCESS} for tests whose bench server
 * runs in the test JVM: its targets and the initiator share one process, so loopback's writes
 * reach them, and the whole two-host path (control channel, descriptors, key checks, fills and
 * checks) runs without a native library.
 */
final class SameJvmLoopback implements TransportProvider {

    private final LoopbackProvider loopback = new LoopbackProvider();

    /** As discovery would describe it. */
    static ProviderInfo info() {
        SameJvmLoopback p = new SameJvmLoopback();
        return new ProviderInfo(p.name(), p.priority(), p.availability(), p.capabilities(), "", Optional.of(p));
    }

    @Override
    public String name() {
        return loopback.name();
    }

    @Override
    public int priority() {
        return loopback.priority();
    }

    @Override
    public Availability availability() {
        return loopback.availability();
    }

    @Override
    public Set<Capability> capabilities() {
        Set<Capability> c = EnumSet.of(Capability.CROSS_PROCESS);
        c.addAll(loopback.capabilities());
        return Set.copyOf(c);
    }

    @Override
    public DataTransport open(TransportConfig config) {
        return loopback.open(config);
    }
}
