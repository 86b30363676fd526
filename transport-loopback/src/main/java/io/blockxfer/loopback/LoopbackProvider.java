package io.blockxfer.loopback;

import com.google.auto.service.AutoService;
import io.blockxfer.loopback.internal.LoopbackEngine;
import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.spi.Availability;
import io.blockxfer.transport.spi.ManagedTransport;
import io.blockxfer.transport.spi.TransportProvider;
import java.util.EnumSet;
import java.util.Set;

/**
 * The {@code loopback} backend: every transport lives in this JVM and reaches its peers through
 * their metadata; transfers copy real bytes and complete asynchronously. By default
 * ({@link io.blockxfer.transport.ProgressMode#AUTO}, which is
 * {@link io.blockxfer.transport.ProgressMode#POLLING_THREAD} here) the initiator's polls do the
 * copies, and its worker thread takes only what polls leave behind; with
 * {@link io.blockxfer.transport.ProgressMode#BACKEND_THREAD} the worker does every copy. Always
 * available, lowest priority. Supports {@link LoopbackFaults}.
 *
 * <p><b>Thread safety:</b> thread-safe and stateless.
 */
@SuppressWarnings("exports") // @AutoService is a compile-time-only annotation; users never need its module
@AutoService(TransportProvider.class)
public final class LoopbackProvider implements TransportProvider {

    /** The provider name. */
    public static final String NAME = "loopback";

    private static final Set<Capability> CAPABILITIES = Set.copyOf(EnumSet.of(Capability.READ,
            Capability.CALLER_REGION, Capability.BACKEND_REGION, Capability.FAULT_INJECTION));

    /** For {@link java.util.ServiceLoader}. */
    public LoopbackProvider() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int priority() {
        return 0;
    }

    @Override
    public Availability availability() {
        return Availability.available();
    }

    @Override
    public Set<Capability> capabilities() {
        return CAPABILITIES;
    }

    @Override
    public DataTransport open(TransportConfig config) {
        return new ManagedTransport(new LoopbackEngine(config), config, CAPABILITIES);
    }
}
