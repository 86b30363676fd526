package io.blockxfer.tck;

import io.blockxfer.tck.process.ChildJvm;
import io.blockxfer.tck.process.ChildJvmException;
import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.spi.Availability;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Places initiators in this JVM and each target in a child JVM running {@link TargetProcess}, on
 * the same class path, with the same JDK ({@link ChildJvm}). Killing a target SIGKILLs its
 * process; stalling it freezes the process with SIGSTOP until SIGCONT thaws it. A frozen process
 * runs no code, but one-sided writes into memory its backend shares without the target's CPU
 * still complete, so {@link TargetPeer#stallHoldsTransfers()} is false here. Backends with the
 * {@link Capability#CROSS_PROCESS} capability run the suite with it:
 *
 * <pre>{@code
 * class UcxTwoProcessConformanceTest extends TransportConformanceSuite {
 *     protected TckHarness harness() { return TwoProcessHarness.of(InJvmHarness.of("ucx")); }
 * }
 * }</pre>
 *
 * <p>System properties starting with {@code blockxfer.} (but not {@code blockxfer.tck.}) are passed
 * on to the child, and so is the environment. Config fields must be strings or integers. With a
 * local harness in caller memory ({@link InJvmHarness#withCallerMemory()}) the child gives its
 * target memory of its own.
 *
 * <p><b>Thread safety:</b> immutable; each target serialises its own commands.
 */
public final class TwoProcessHarness implements TckHarness {

    private static final Duration REPLY = Duration.ofSeconds(30);

    private final InJvmHarness local;
    private final List<String> jvmArgs;

    private TwoProcessHarness(InJvmHarness local, List<String> jvmArgs) {
        this.local = local;
        this.jvmArgs = List.copyOf(jvmArgs);
    }

    /** Initiators from {@code local}; targets in child processes of the same backend. */
    public static TwoProcessHarness of(InJvmHarness local) {
        return new TwoProcessHarness(Objects.requireNonNull(local, "local"), List.of());
    }

    /** This harness, starting children with extra JVM arguments. */
    public TwoProcessHarness withJvmArgs(List<String> args) {
        List<String> all = new ArrayList<>(jvmArgs);
        all.addAll(args);
        return new TwoProcessHarness(local, all);
    }

    @Override
    public String backend() {
        return local.backend();
    }

    @Override
    public Availability availability() {
        return local.availability();
    }

    @Override
    public Set<Capability> capabilities() {
        return local.capabilities();
    }

    @Override
    public String mode() {
        return local.memory() == Memory.CALLER ? "two-process, caller memory" : "two-process";
    }

    @Override
    public boolean targetsInOtherProcesses() {
        return true;
    }

    @Override
    public Memory memory() {
        return local.memory();
    }

    @Override
    public Optional<InitiatorFaults> initiatorFaults(DataTransport initiator) {
        return local.initiatorFaults(initiator);
    }

    @Override
    public TckDeclarations declarations() {
        return local.declarations();
    }

    /** The local harness, for the kit's child-JVM rules. */
    InJvmHarness local() {
        return local;
    }

    /** The extra JVM arguments of children. */
    List<String> jvmArgs() {
        return jvmArgs;
    }

    @Override
    public DataTransport openInitiator(TransportConfig config) {
        return local.openInitiator(config);
    }

    @Override
    public TargetPeer openTarget(TransportConfig config) {
        List<String> args = new ArrayList<>();
        args.add(local.backend());
        args.add(Integer.toString(config.region().numBlocks()));
        args.add(Long.toString(config.region().blockLength()));
        args.add(config.agentName() + "-target");
        args.add(Long.toString(config.transferTimeout().toMillis()));
        config.options().forEach((k, v) -> args.add("opt:" + k + "=" + v));
        for (Map.Entry<String, Object> f : config.configFields().entrySet()) {
            Object v = f.getValue();
            if (v instanceof Number n && !(v instanceof Double) && !(v instanceof Float)) {
                args.add("field:" + f.getKey() + "=i:" + n.longValue());
            } else if (v instanceof String s) {
                args.add("field:" + f.getKey() + "=s:" + s);
            } else {
                throw new IllegalArgumentException("two-process config fields must be strings or integers: " + f);
            }
        }
        args.add(TargetProcess.PROGRESS + config.progressMode().name());
        config.keyRing().ifPresent(ring -> args.add(TargetProcess.KEY_RING + TckKeys.encode(ring)));
        if (config.acceptUnsignedPeers()) {
            args.add(TargetProcess.ACCEPT_UNSIGNED);
        }
        if (config.notificationQueueCapacity() != TransportConfig.DEFAULT_NOTIFICATION_QUEUE_CAPACITY) {
            args.add(TargetProcess.NOTIFY_QUEUE + config.notificationQueueCapacity());
        }
        if (config.region().callerMemory().isPresent()) {
            args.add(TargetProcess.CALLER_MEMORY);
        }
        ChildJvm child = ChildJvm.builder(TargetProcess.class).name("tck-target-" + local.backend()).args(args)
                .jvmArgs(List.of("-Xmx512m")).jvmArgs(jvmArgs)
                .forwardSystemProperties(key -> key.startsWith("blockxfer.") && !key.startsWith("blockxfer.tck."))
                .start();
        try {
            return new ProcessTarget(child);
        } catch (RuntimeException | Error e) {
            child.kill();
            throw e;
        }
    }

    private static final class ProcessTarget implements TargetPeer {
        private final ChildJvm child;
        private final PeerDescriptor descriptor;

        ProcessTarget(ChildJvm child) {
            this.child = child;
            String ready = child.nextLine(Duration.ofSeconds(60));
            if (!ready.startsWith("READY ")) {
                throw new IllegalStateException("target process " + child.pid() + " failed to start: " + ready
                        + " (" + child.describe() + ")");
            }
            this.descriptor = PeerDescriptor.decode(Base64.getDecoder().decode(ready.substring(6)));
        }

        private String request(String command) {
            return request(command, REPLY);
        }

        private String request(String command, Duration reply) {
            if (child.isSuspended()) {
                throw new IllegalStateException("target process " + child.pid() + " is frozen; thaw it before '"
                        + command + "'");
            }
            String r;
            try {
                r = child.request(command, reply);
            } catch (ChildJvmException e) {
                throw new IllegalStateException("target process: " + e.getMessage(), e);
            }
            if (r.startsWith("ERR ")) {
                throw new IllegalStateException("target process " + child.pid() + ": " + r.substring(4));
            }
            return r;
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
            request("FILL " + block + " " + seed);
        }

        @Override
        public long firstMismatch(int block, long seed) {
            return Long.parseLong(request("CHECK " + block + " " + seed).substring(3));
        }

        @Override
        public void addPeer(String peerId, PeerDescriptor peer) {
            request("PEER " + peerId + " " + Base64.getEncoder().encodeToString(peer.encode()));
        }

        @Override
        public List<ReceivedNotification> takeNotifications(int count, Duration limit) {
            String answer = request("NOTES " + count + " " + limit.toMillis(), REPLY.plus(limit));
            return NotificationProbe.decodeAll(answer.split(" ", -1), 1);
        }

        @Override
        public io.blockxfer.transport.NotificationStats notificationStats() {
            String[] f = request("NSTATS").split(" ", -1);
            return new io.blockxfer.transport.NotificationStats(Long.parseLong(f[1]), Long.parseLong(f[2]),
                    Long.parseLong(f[3]), Long.parseLong(f[4]), Long.parseLong(f[5]), Long.parseLong(f[6]),
                    Long.parseLong(f[7]));
        }

        @Override
        public void kill() {
            child.kill();
        }

        @Override
        public boolean canStall() {
            return true;
        }

        @Override
        public void stall(boolean stalled) {
            if (stalled) {
                child.suspend();
            } else {
                child.resume();
            }
        }

        @Override
        public boolean stallHoldsTransfers() {
            return false;
        }

        @Override
        public void close() {
            if (child.isAlive() && !child.isSuspended()) {
                try {
                    child.send("CLOSE");
                } catch (ChildJvmException ignored) {
                    // it is going anyway; close below reaps it
                }
            }
            child.close();
        }

        @Override
        public String toString() {
            return "target " + child.describe();
        }
    }
}
