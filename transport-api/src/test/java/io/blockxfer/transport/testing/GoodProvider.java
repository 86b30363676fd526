package io.blockxfer.transport.testing;

import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.spi.Availability;
import io.blockxfer.transport.spi.ManagedTransport;
import io.blockxfer.transport.spi.TransportProvider;
import java.util.Set;

/** An available provider for discovery tests. */
public class GoodProvider implements TransportProvider {
    @Override public String name() { return "good"; }
    @Override public int priority() { return 3; }
    @Override public Availability availability() { return Availability.available(); }
    @Override public Set<Capability> capabilities() { return Set.of(Capability.READ); }
    @Override public String nativeVersion() { return "good 1.0"; }
    @Override public DataTransport open(TransportConfig config) {
        return new ManagedTransport(new ScriptedEngine(config), config, capabilities());
    }
}
