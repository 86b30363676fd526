package io.blockxfer.tck;

import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.ProviderInfo;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import io.blockxfer.transport.spi.Availability;
import io.blockxfer.transport.spi.ManagedTransport;
import io.blockxfer.transport.spi.TransportProvider;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.Constructor;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * Places initiator and targets in this JVM, opened by one provider.
 *
 * <p>Fault hooks: for a backend that declares {@link Capability#FAULT_INJECTION}, killing,
 * stalling and the {@link InitiatorFaults} go through its {@code LoopbackFaults} feature (when the
 * loopback module is on the class path); otherwise killing a target closes it, and stalls and
 * initiator faults are absent unless given with the {@code with...} methods, which always win:
 * {@link #withEngineFaults()} gives every backend built on {@code ManagedTransport} the kit's own.
 * What a backend declares for the rules about its promises comes with
 * {@link #withDeclarations(TckDeclarations)}.
 *
 * <p><b>Thread safety:</b> immutable; the {@code with...} methods return new harnesses.
 */
public final class InJvmHarness implements TckHarness {

    private final String name;
    /** Null when no provider of the name was found (the harness is then unavailable). */
    private final @Nullable TransportProvider provider;
    private final boolean foundByName;
    private final Availability availability;
    // each null: none given
    private final @Nullable Consumer<DataTransport> kill;
    private final @Nullable BiConsumer<DataTransport, Boolean> stall;
    private final @Nullable Function<DataTransport, Optional<InitiatorFaults>> faults;
    private final @Nullable UnaryOperator<DataTransport> decorator;
    private final Memory memory;
    private final boolean engineFaults;
    private final TckDeclarations declarations;

    private InJvmHarness(String name, @Nullable TransportProvider provider, boolean foundByName,
            Availability availability, @Nullable Consumer<DataTransport> kill,
            @Nullable BiConsumer<DataTransport, Boolean> stall,
            @Nullable Function<DataTransport, Optional<InitiatorFaults>> faults,
            @Nullable UnaryOperator<DataTransport> decorator, Memory memory, boolean engineFaults,
            TckDeclarations declarations) {
        this.name = name;
        this.provider = provider;
        this.foundByName = foundByName;
        this.availability = availability;
        this.kill = kill;
        this.stall = stall;
        this.faults = faults;
        this.decorator = decorator;
        this.memory = memory;
        this.engineFaults = engineFaults;
        this.declarations = declarations;
    }

    private static InJvmHarness plain(String name, @Nullable TransportProvider provider, boolean foundByName,
            Availability availability) {
        return new InJvmHarness(name, provider, foundByName, availability, null, null, null, null, Memory.DEFAULT,
                false, TckDeclarations.none());
    }

    /** A harness for the provider named {@code name}, found through {@link Transports#providers()}. */
    public static InJvmHarness of(String name) {
        Objects.requireNonNull(name, "name");
        Optional<ProviderInfo> info = Transports.providers().stream().filter(p -> p.name().equals(name)).findFirst();
        if (info.isEmpty()) {
            return plain(name, null, true, Availability.unavailable("no provider named '" + name
                    + "' on the class path; found: " + Transports.providers().stream().map(ProviderInfo::describe)
                    .toList()));
        }
        ProviderInfo p = info.get();
        return plain(name, p.provider().orElse(null), true, p.availability());
    }

    /** A harness for {@code provider}. */
    public static InJvmHarness of(TransportProvider provider) {
        Availability availability;
        try {
            availability = provider.availability();
        } catch (RuntimeException | LinkageError e) {
            availability = Availability.unavailable("availability probe failed: " + e, e);
        }
        return plain(provider.name(), provider, false, availability);
    }

    /** This harness, killing targets with {@code kill} (it should also leave them closable). */
    public InJvmHarness withKill(Consumer<DataTransport> kill) {
        return new InJvmHarness(name, provider, foundByName, availability, Objects.requireNonNull(kill, "kill"), stall,
                faults, decorator, memory, engineFaults, declarations);
    }

    /**
     * This harness, able to stall targets with {@code stall}, which must hold every transfer to a
     * stalled target in flight until it is thawed.
     */
    public InJvmHarness withStall(BiConsumer<DataTransport, Boolean> stall) {
        return new InJvmHarness(name, provider, foundByName, availability, kill, Objects.requireNonNull(stall, "stall"),
                faults, decorator, memory, engineFaults, declarations);
    }

    /** This harness, injecting faults into its initiators with what {@code faults} returns for each. */
    public InJvmHarness withInitiatorFaults(Function<DataTransport, InitiatorFaults> faults) {
        Objects.requireNonNull(faults, "faults");
        return new InJvmHarness(name, provider, foundByName, availability, kill, stall,
                t -> Optional.of(faults.apply(t)), decorator, memory, engineFaults, declarations);
    }

    /**
     * This harness, passing every initiator through {@code decorator}; the kit's own tests use it to
     * break a working backend on purpose. The rules that attack the backend with bad descriptors run
     * in a child JVM when the decorator is an instance of a public class with a public no-argument
     * constructor (the child makes its own), and in this JVM otherwise.
     */
    public InJvmHarness withInitiatorDecorator(UnaryOperator<DataTransport> decorator) {
        return new InJvmHarness(name, provider, foundByName, availability, kill, stall, faults,
                Objects.requireNonNull(decorator, "decorator"), memory, engineFaults, declarations);
    }

    /** This harness, giving every transport memory the kit allocates ({@code RegionSpec.wrap}). */
    public InJvmHarness withCallerMemory() {
        return new InJvmHarness(name, provider, foundByName, availability, kill, stall, faults, decorator,
                Memory.CALLER, engineFaults, declarations);
    }

    /**
     * This harness, injecting the kit's own {@link InitiatorFaults} into its initiators: each
     * initiator's engine is wrapped in a fault-injecting engine of the kit, through
     * {@link ManagedTransport#withEngineDecorator}. The backend's provider must build its
     * {@code ManagedTransport} on the thread that calls {@code open} (opening an initiator fails,
     * naming the problem, where it does not). With these faults, the rules that need a transfer
     * held in flight or a submit that fails natively (C7, C8, F3, L4, T3, and the held paths of
     * others) run for a backend without {@link Capability#FAULT_INJECTION}. Faults given with
     * {@link #withInitiatorFaults} win.
     */
    public InJvmHarness withEngineFaults() {
        return new InJvmHarness(name, provider, foundByName, availability, kill, stall, faults, decorator, memory,
                true, declarations);
    }

    /** This harness, with what the backend declares for the rules that check its promises. */
    public InJvmHarness withDeclarations(TckDeclarations declarations) {
        return new InJvmHarness(name, provider, foundByName, availability, kill, stall, faults, decorator, memory,
                engineFaults, Objects.requireNonNull(declarations, "declarations"));
    }

    @Override
    public TckDeclarations declarations() {
        return declarations;
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
        return memory == Memory.CALLER ? "in-jvm, caller memory" : "in-jvm";
    }

    @Override
    public Memory memory() {
        return memory;
    }

    @Override
    public DataTransport openInitiator(TransportConfig config) {
        DataTransport t = engineFaults ? ManagedTransport.withEngineDecorator(EngineFaults::new, () -> open(config))
                : open(config);
        if (engineFaults && t.feature(EngineFaults.class).isEmpty()) {
            t.close();
            throw new IllegalStateException("the harness of " + name + " injects the kit's engine faults"
                    + " (withEngineFaults), but the transport its provider opened did not pass its engine through"
                    + " them: the provider must build a ManagedTransport on the thread that calls open");
        }
        return decorator == null ? t : decorator.apply(t);
    }

    @Override
    public TargetPeer openTarget(TransportConfig config) {
        return new LocalTarget(open(config), config.region().callerMemory().orElse(null));
    }

    private DataTransport open(TransportConfig config) {
        if (provider == null) {
            throw new IllegalStateException("backend '" + name + "' is unavailable: " + availability.cause());
        }
        return provider.open(config);
    }

    @Override
    public Optional<InitiatorFaults> initiatorFaults(DataTransport initiator) {
        if (faults != null) {
            return faults.apply(initiator);
        }
        if (engineFaults) {
            return initiator.feature(EngineFaults.class).map(InitiatorFaults.class::cast);
        }
        return loopbackHooks() ? LoopbackHooks.initiatorFaults(initiator) : Optional.empty();
    }

    private boolean loopbackHooks() {
        return capabilities().contains(Capability.FAULT_INJECTION) && LoopbackHooks.available();
    }

    private void killTarget(DataTransport t) {
        if (kill != null) {
            kill.accept(t);
        } else if (loopbackHooks()) {
            LoopbackHooks.kill(t);
        } else {
            t.close();
        }
    }

    private boolean canStallTargets() {
        return stall != null || loopbackHooks();
    }

    private void stallTarget(DataTransport t, boolean stalled) {
        if (stall != null) {
            stall.accept(t, stalled);
        } else if (loopbackHooks()) {
            LoopbackHooks.stall(t, stalled);
        } else {
            throw new UnsupportedOperationException(name + " targets cannot be stalled in this harness");
        }
    }

    /**
     * How a child JVM recreates this harness ({@link #fromRecipe}), or empty when it cannot: the
     * provider must be found by name, or be a public class whose only public constructor takes no
     * arguments (one with other constructors may hold state the child cannot rebuild), and the
     * initiator decorator, if any, a public class with a public no-argument constructor.
     */
    Optional<List<String>> recipe() {
        if (provider == null) {
            return Optional.empty();
        }
        List<String> recipe = new ArrayList<>();
        if (foundByName) {
            recipe.add("provider-name=" + name);
        } else if (constructible(provider.getClass()) && provider.getClass().getConstructors().length == 1) {
            recipe.add("provider-class=" + provider.getClass().getName());
        } else {
            return Optional.empty();
        }
        if (decorator != null) {
            if (!constructible(decorator.getClass())) {
                return Optional.empty();
            }
            recipe.add("decorator-class=" + decorator.getClass().getName());
        }
        recipe.add("memory=" + memory.name());
        if (engineFaults) {
            recipe.add("engine-faults=true");
        }
        return Optional.of(recipe);
    }

    /** The harness {@link #recipe()} describes, made in this JVM. */
    @SuppressWarnings("unchecked") // a decorator class named by a recipe is a UnaryOperator<DataTransport>
    static InJvmHarness fromRecipe(List<String> recipe) {
        InJvmHarness harness = null;
        for (String item : recipe) {
            String key = item.substring(0, item.indexOf('='));
            String value = item.substring(item.indexOf('=') + 1);
            switch (key) {
                case "provider-name" -> harness = of(value);
                case "provider-class" -> harness = of((TransportProvider) instantiate(value));
                case "decorator-class" -> harness = Objects.requireNonNull(harness, "provider first")
                        .withInitiatorDecorator((UnaryOperator<DataTransport>) instantiate(value));
                case "memory" -> {
                    if (Memory.valueOf(value) == Memory.CALLER) {
                        harness = Objects.requireNonNull(harness, "provider first").withCallerMemory();
                    }
                }
                case "engine-faults" -> harness = Objects.requireNonNull(harness, "provider first").withEngineFaults();
                default -> throw new IllegalArgumentException("unknown harness recipe item: " + item);
            }
        }
        return Objects.requireNonNull(harness, "a recipe names a provider");
    }

    private static boolean constructible(Class<?> type) {
        if (type.isHidden() || type.isAnonymousClass() || type.isLocalClass() || !Modifier.isPublic(type.getModifiers())
                || (type.isMemberClass() && !Modifier.isStatic(type.getModifiers()))) {
            return false;
        }
        try {
            return Modifier.isPublic(type.getConstructor().getModifiers());
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    private static Object instantiate(String className) {
        try {
            Constructor<?> c = Class.forName(className, true, Thread.currentThread().getContextClassLoader())
                    .getConstructor();
            return c.newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalArgumentException("cannot make a " + className + ": " + e, e);
        }
    }

    private final class LocalTarget implements TargetPeer {
        private final DataTransport transport;
        private final PeerDescriptor descriptor;
        private final @Nullable MemorySegment callerMemory;

        LocalTarget(DataTransport transport, @Nullable MemorySegment callerMemory) {
            this.transport = transport;
            this.descriptor = transport.localDescriptor();
            this.callerMemory = callerMemory;
        }

        /** Block {@code b} as the target's owner sees it: through the caller's memory when it gave it. */
        private MemorySegment block(int b) {
            long length = descriptor.blockLength();
            return callerMemory == null ? transport.region().block(b) : callerMemory.asSlice(b * length, length);
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
            BlockPattern.fill(block(block), seed);
        }

        @Override
        public long firstMismatch(int block, long seed) {
            return BlockPattern.firstMismatch(block(block), seed);
        }

        @Override
        public void kill() {
            killTarget(transport);
        }

        @Override
        public boolean canStall() {
            return canStallTargets();
        }

        @Override
        public void stall(boolean stalled) {
            stallTarget(transport, stalled);
        }

        @Override
        public void addPeer(String peerId, PeerDescriptor peer) {
            transport.addPeer(peerId, peer);
        }

        @Override
        public List<ReceivedNotification> takeNotifications(int count, Duration limit) {
            return NotificationTaker.take(transport, this::block, count, limit);
        }

        @Override
        public io.blockxfer.transport.NotificationStats notificationStats() {
            return transport.notificationStats();
        }

        @Override
        public void close() {
            transport.close();
        }

        @Override
        public String toString() {
            return "in-JVM " + name + " target " + descriptor;
        }
    }
}
