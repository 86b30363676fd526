package io.blockxfer.tck.holds;

import io.blockxfer.holds.HoldGrant;
import io.blockxfer.holds.Holds;
import io.blockxfer.tck.process.ChildJvm;
import io.blockxfer.tck.process.ChildJvmException;
import io.blockxfer.tck.process.UcxShmFiles;
import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PeerDescriptor;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A holder that rule H9 can kill: in a child JVM ({@link HolderProcess}, SIGKILLed) where the harness
 * places peers in other processes, in this JVM otherwise (its transport killed through the loopback
 * backend's faults, or closed under its holds, which go on ticking and renewing into the void).
 * Either way it renews on its own threads and real time until it dies, and never releases.
 *
 * <p><b>Thread safety:</b> confined to the rule's thread.
 */
abstract class MortalHolder implements AutoCloseable {

    /** Its transport's descriptor, for the owner to register it. */
    abstract PeerDescriptor descriptor();

    /** Registers the owner as "owner". */
    abstract void meet(PeerDescriptor owner);

    /** Accepts the grant from "owner" and returns once the owner confirmed it. */
    abstract void accept(HoldGrant grant, Duration within) throws Exception;

    /** Dies without a word. */
    abstract void kill();

    /** How it dies, for messages. */
    abstract String how();

    @Override
    public abstract void close();

    /** A holder where the harness places peers: in a child JVM (started with {@code jvmArgs}) or in this one. */
    static MortalHolder open(HoldFixture fx, List<String> jvmArgs) {
        return fx.harness.targetsInOtherProcesses() ? new InProcess(fx, jvmArgs) : new InJvm(fx);
    }

    /** A holder in this JVM. */
    private static final class InJvm extends MortalHolder {
        private final DataTransport transport;
        private final Holds holds;
        private final boolean faults;

        InJvm(HoldFixture fx) {
            transport = fx.open("holder", HoldFixture.HOLDER);
            holds = fx.keep(Holds.builder(transport).tickInterval(Duration.ofMillis(20)).pumpNotifications(n -> { })
                    .build());
            faults = fx.harness.capabilities().contains(Capability.FAULT_INJECTION) && loopbackFaults();
        }

        private static boolean loopbackFaults() {
            try {
                Class.forName("io.blockxfer.loopback.LoopbackFaults", false, MortalHolder.class.getClassLoader());
                return true;
            } catch (ClassNotFoundException | LinkageError e) {
                return false;
            }
        }

        @Override
        PeerDescriptor descriptor() {
            return transport.localDescriptor();
        }

        @Override
        void meet(PeerDescriptor owner) {
            transport.addPeer("owner", owner);
        }

        @Override
        void accept(HoldGrant grant, Duration within) throws Exception {
            holds.accept("owner", grant).whenConfirmed().get(within.toMillis(), TimeUnit.MILLISECONDS);
        }

        @Override
        void kill() {
            if (faults) {
                transport.feature(io.blockxfer.loopback.LoopbackFaults.class).orElseThrow().kill();
            } else {
                transport.close();
            }
        }

        @Override
        String how() {
            return faults ? "its transport killed" : "its transport closed under its holds";
        }

        @Override
        public void close() {
            // the fixture closes the holds and the transport
        }
    }

    /** A holder in a child JVM. */
    private static final class InProcess extends MortalHolder {
        private static final Duration REPLY = Duration.ofSeconds(60);
        private final ChildJvm child;
        private final PeerDescriptor descriptor;
        private Set<Path> shm = Set.of();

        InProcess(HoldFixture fx, List<String> jvmArgs) {
            child = ChildJvm.builder(HolderProcess.class).name("tck-holder-" + fx.harness.backend())
                    .args(List.of(fx.harness.backend(), Integer.toString(HoldFixture.BLOCKS),
                            Long.toString(HoldFixture.BLOCK_LENGTH), fx.agentName("holder")))
                    .jvmArgs(List.of("-Xmx256m")).jvmArgs(jvmArgs)
                    .forwardSystemProperties(k -> k.startsWith("blockxfer.") && !k.startsWith("blockxfer.tck."))
                    .start();
            String ready = child.nextLine(REPLY);
            if (!ready.startsWith("READY ")) {
                child.kill();
                throw new IllegalStateException("holder process " + child.pid() + " failed to start: " + ready);
            }
            descriptor = PeerDescriptor.decode(Base64.getDecoder().decode(ready.substring(6)));
        }

        private void request(String command, String expect) {
            String r;
            try {
                r = child.request(command, REPLY);
            } catch (ChildJvmException e) {
                throw new IllegalStateException("holder process: " + e.getMessage(), e);
            }
            if (!r.equals(expect)) {
                throw new IllegalStateException("holder process " + child.pid() + " answered '" + r + "' to "
                        + command.substring(0, Math.max(0, command.indexOf(' '))));
            }
        }

        @Override
        PeerDescriptor descriptor() {
            return descriptor;
        }

        @Override
        void meet(PeerDescriptor owner) {
            request("PEER " + Base64.getEncoder().encodeToString(owner.encode()), "OK");
        }

        @Override
        void accept(HoldGrant grant, Duration within) {
            request("ACCEPT " + Base64.getEncoder().encodeToString(grant.encode()), "CONFIRMED");
        }

        @Override
        void kill() {
            shm = UcxShmFiles.mappedBy(child.pid());
            child.kill();
        }

        @Override
        String how() {
            return "its process " + child.pid() + " SIGKILLed";
        }

        @Override
        public void close() {
            child.close();
            var unused = UcxShmFiles.sweep(shm);
        }
    }
}
