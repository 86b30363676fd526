package io.blockxfer.loopback;

import io.blockxfer.loopback.internal.LoopbackEngine;
import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.spi.Availability;
import io.blockxfer.transport.spi.ManagedTransport;
import io.blockxfer.transport.spi.TransferEngine;
import io.blockxfer.transport.spi.TransportProvider;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * The {@code loopback} backend: every transport lives in this JVM and reaches its peers through
 * their metadata; transfers copy real bytes and complete asynchronously. By default
 * ({@link io.blockxfer.transport.ProgressMode#AUTO}, which is
 * {@link io.blockxfer.transport.ProgressMode#POLLING_THREAD} here) the initiator's polls do the
 * copies, and its worker thread takes only what polls leave behind; with
 * {@link io.blockxfer.transport.ProgressMode#BACKEND_THREAD} the worker does every copy. Always
 * available, lowest priority. Supports {@link LoopbackFaults}.
 *
 * <p>For tests of test kits: {@link #LoopbackProvider(UnaryOperator, Set)} makes a provider whose
 * transports run their engine through a decorator and declare fewer capabilities, so a kit (such as
 * the conformance kit's own tests) can break a working engine on purpose, one defect at a time.
 *
 * <p><b>Thread safety:</b> thread-safe and immutable.
 */
public final class LoopbackProvider implements TransportProvider {

    /** The provider name. */
    public static final String NAME = "loopback";

    private static final Set<Capability> CAPABILITIES = Set.copyOf(EnumSet.of(Capability.READ,
            Capability.CALLER_REGION, Capability.BACKEND_REGION, Capability.FAULT_INJECTION, Capability.NOTIFICATIONS));

    private final UnaryOperator<TransferEngine> engineDecorator;
    private final Set<Capability> capabilities;

    /** For {@link java.util.ServiceLoader}. */
    public LoopbackProvider() {
        this.engineDecorator = UnaryOperator.identity();
        this.capabilities = CAPABILITIES;
    }

    /**
     * A loopback provider for tests: every transport it opens passes its engine through
     * {@code engineDecorator} (which may break it on purpose) before the managed transport takes
     * it, and declares {@code capabilities}, which must be some of loopback's own (dropping
     * {@link Capability#READ} makes its transports refuse reads). Not registered for discovery;
     * the decorator's {@link TransferEngine#feature} should forward to the engine it wraps, so
     * {@link LoopbackFaults} stay reachable.
     *
     * @throws IllegalArgumentException if {@code capabilities} names one loopback lacks
     */
    public LoopbackProvider(UnaryOperator<TransferEngine> engineDecorator, Set<Capability> capabilities) {
        this.engineDecorator = Objects.requireNonNull(engineDecorator, "engineDecorator");
        if (!CAPABILITIES.containsAll(capabilities)) {
            throw new IllegalArgumentException("loopback cannot declare " + capabilities + "; it has " + CAPABILITIES);
        }
        this.capabilities = capabilities.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(capabilities));
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
        return capabilities;
    }

    @Override
    public DataTransport open(TransportConfig config) {
        TransferEngine engine = new LoopbackEngine(config);
        TransferEngine decorated;
        try {
            decorated = Objects.requireNonNull(engineDecorator.apply(engine), "engine decorator returned null");
        } catch (RuntimeException | Error e) {
            engine.close(false);
            throw e;
        }
        return new ManagedTransport(decorated, config, capabilities);
    }
}
