package io.blockxfer.ucx;

import com.google.auto.service.AutoService;
import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.spi.Availability;
import io.blockxfer.transport.spi.ManagedTransport;
import io.blockxfer.transport.spi.TransportProvider;
import io.blockxfer.ucx.internal.UcxEngine;
import io.blockxfer.ucx.internal.UcxLibrary;
import java.util.EnumSet;
import java.util.Set;

/**
 * The {@code ucx} backend: one-sided WRITE (put) and READ (get) of blocks over UCX RMA through
 * JUCX, between threads, processes or hosts. Regions are UCX-allocated memory (on one host SysV
 * shared memory, which a peer's put reaches with one memcpy) or the caller's memory, registered
 * with UCX.
 *
 * <p>UCX comes from the project's natives folder ({@code scripts/install-natives}), a directory
 * named by {@value UcxOptions#LIBDIR_PROPERTY} or {@value UcxOptions#LIBDIR_ENV}, or the system
 * (see {@link UcxOptions}); the backend loads it itself, without {@code LD_LIBRARY_PATH}. The first
 * call to {@link #availability()} loads it and creates a UCP context; the outcome and its cause are
 * cached for the process.
 *
 * <p>Dead peers are detected by UCX's keepalive ({@value UcxOptions#KEEPALIVE}, default
 * {@value UcxOptions#DEFAULT_KEEPALIVE}): transfers still in flight then are reported failed, new
 * ones fail at once, and the failure is logged once. Between the death and its detection, puts
 * into a peer's shared memory complete (the bytes land in the dead process's segment) and are
 * reported done. UCX cannot abort a put in flight, so an {@code immediate} cancel only stops
 * reporting a transfer (its bytes may still land), and removing a peer force-closes its endpoint.
 *
 * <p><b>Thread safety:</b> thread-safe; the constructor touches no native code.
 */
@AutoService(TransportProvider.class)
public final class UcxProvider implements TransportProvider {

    /** The provider name. */
    public static final String NAME = "ucx";

    private static final Set<Capability> CAPABILITIES = Set.copyOf(EnumSet.of(Capability.READ,
            Capability.CALLER_REGION, Capability.BACKEND_REGION, Capability.CROSS_PROCESS, Capability.NOTIFICATIONS));

    /** For {@link java.util.ServiceLoader}. */
    public UcxProvider() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int priority() {
        return 5;
    }

    @Override
    public Availability availability() {
        return UcxLibrary.availability();
    }

    @Override
    public Set<Capability> capabilities() {
        return CAPABILITIES;
    }

    @Override
    public String nativeVersion() {
        return UcxLibrary.version();
    }

    @Override
    public DataTransport open(TransportConfig config) {
        return new ManagedTransport(new UcxEngine(config), config, CAPABILITIES);
    }
}
