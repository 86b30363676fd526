package io.blockxfer.tck;

import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.ProviderInfo;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import io.blockxfer.transport.spi.Availability;
import io.blockxfer.transport.spi.TransportProvider;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * Places initiator and targets in this JVM, opened by one provider. Killing a target closes it,
 * unless a kill hook says otherwise; stalling needs a stall hook from the backend (the loopback
 * backend's fault injection, for instance).
 *
 * <p><b>Thread safety:</b> immutable; the {@code with...} methods return new harnesses.
 */
public final class InJvmHarness implements TckHarness {

    private final String name;
    private final TransportProvider provider;
    private final Availability availability;
    private final Consumer<DataTransport> kill;
    private final BiConsumer<DataTransport, Boolean> stall;
    private final UnaryOperator<DataTransport> decorator;

    private InJvmHarness(String name, TransportProvider provider, Availability availability,
            Consumer<DataTransport> kill, BiConsumer<DataTransport, Boolean> stall,
            UnaryOperator<DataTransport> decorator) {
        this.name = name;
        this.provider = provider;
        this.availability = availability;
        this.kill = kill;
        this.stall = stall;
        this.decorator = decorator;
    }

    /** A harness for the provider named {@code name}, found through {@link Transports#providers()}. */
    public static InJvmHarness of(String name) {
        Objects.requireNonNull(name, "name");
        Optional<ProviderInfo> info = Transports.providers().stream().filter(p -> p.name().equals(name)).findFirst();
        if (info.isEmpty()) {
            return new InJvmHarness(name, null, Availability.unavailable("no provider named '" + name
                    + "' on the class path; found: " + Transports.providers().stream().map(ProviderInfo::describe).toList()),
                    DataTransport::close, null, UnaryOperator.identity());
        }
        ProviderInfo p = info.get();
        return new InJvmHarness(name, p.provider().orElse(null), p.availability(), DataTransport::close, null,
                UnaryOperator.identity());
    }

    /** A harness for {@code provider}. */
    public static InJvmHarness of(TransportProvider provider) {
        Availability availability;
        try {
            availability = provider.availability();
        } catch (RuntimeException | LinkageError e) {
            availability = Availability.unavailable("availability probe failed: " + e, e);
        }
        return new InJvmHarness(provider.name(), provider, availability, DataTransport::close, null,
                UnaryOperator.identity());
    }

    /** This harness, killing targets with {@code kill} (it should also leave them closable). */
    public InJvmHarness withKill(Consumer<DataTransport> kill) {
        return new InJvmHarness(name, provider, availability, Objects.requireNonNull(kill, "kill"), stall, decorator);
    }

    /** This harness, able to stall targets with {@code stall}. */
    public InJvmHarness withStall(BiConsumer<DataTransport, Boolean> stall) {
        return new InJvmHarness(name, provider, availability, kill, Objects.requireNonNull(stall, "stall"), decorator);
    }

    /**
     * This harness, passing every initiator through {@code decorator}; the kit's own tests use it to
     * break a working backend on purpose.
     */
    public InJvmHarness withInitiatorDecorator(UnaryOperator<DataTransport> decorator) {
        return new InJvmHarness(name, provider, availability, kill, stall, Objects.requireNonNull(decorator, "decorator"));
    }

    @Override
    public String backend() {
        return name;
    }

    @Override
    public Availability availability() {
        return availability;
    }

    @Override
    public Set<Capability> capabilities() {
        return provider == null ? Set.of() : provider.capabilities();
    }

    @Override
    public String mode() {
        return "in-jvm";
    }

    @Override
    public DataTransport openInitiator(TransportConfig config) {
        return decorator.apply(provider.open(config));
    }

    @Override
    public TargetPeer openTarget(TransportConfig config) {
        return new LocalTarget(provider.open(config));
    }

    private final class LocalTarget implements TargetPeer {
        private final DataTransport transport;
        private final PeerDescriptor descriptor;

        LocalTarget(DataTransport transport) {
            this.transport = transport;
            this.descriptor = transport.localDescriptor();
        }

        @Override
        public PeerDescriptor descriptor() {
            return descriptor;
        }

        @Override
        public int numBlocks() {
            return descriptor.numBlocks();
        }

        @Override
        public void fill(int block, long seed) {
            BlockPattern.fill(transport.region().block(block), seed);
        }

        @Override
        public long firstMismatch(int block, long seed) {
            return BlockPattern.firstMismatch(transport.region().block(block), seed);
        }

        @Override
        public void kill() {
            kill.accept(transport);
        }

        @Override
        public boolean canStall() {
            return stall != null;
        }

        @Override
        public void stall(boolean stalled) {
            if (stall == null) {
                throw new UnsupportedOperationException(name + " targets cannot be stalled in this harness");
            }
            stall.accept(transport, stalled);
        }

        @Override
        public void close() {
            transport.close();
        }
    }
}
