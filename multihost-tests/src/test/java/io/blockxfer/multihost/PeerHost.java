package io.blockxfer.multihost;

import com.github.dockerjava.api.DockerClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.Network;

/**
 * One running peer: its container, its control channel and the faults the suite applies to it
 * ({@code docker kill}, {@code docker network disconnect}, {@code docker pause}). The control
 * channel does not go through the container's network, so it keeps working while the peer is cut
 * off, and answers again once a frozen peer thaws.
 *
 * <p><b>Thread safety:</b> thread-safe for requests and waits; start and close from one thread.
 */
class PeerHost implements AutoCloseable {

    static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    static final Duration REPLY_TIMEOUT = Duration.ofSeconds(60);

    private final String name;
    private final Network network;
    private final PeerContainer container;
    private final ControlEndpoint control;
    private final PeerLog output;
    private final Path logDir;
    private final String descriptor;
    private volatile boolean paused;

    /** Starts the container and waits for its {@code READY}. */
    PeerHost(Testbed bed, String name, List<String> peerArgs) throws IOException {
        this(bed, name, peerArgs, c -> { });
    }

    /** Starts the container, set up further by {@code configure} first, and waits for its {@code READY}. */
    PeerHost(Testbed bed, String name, List<String> peerArgs, Consumer<PeerContainer> configure) throws IOException {
        this.name = name;
        this.network = bed.network();
        this.logDir = bed.logDir();
        Path dir = bed.controlRoot().resolve(name);
        Path logFile = logDir.resolve(name + ".log");
        this.output = PeerLog.ofContainer(logFile);
        this.control = new ControlEndpoint(name, dir, output);
        this.container = new PeerContainer(bed.settings(), bed.classpath(), bed.backend(), network, name, dir,
                logFile, peerArgs);
        configure.accept(container);
        container.start();
        control.accept(START_TIMEOUT, container::isRunning);
        String ready = control.await(0, l -> l.startsWith("E READY") || l.startsWith("E ERR"), START_TIMEOUT,
                "READY");
        if (ready.startsWith("E ERR")) {
            throw new PeerStartException(name + " could not open a " + bed.backend().name() + " transport: "
                    + ready.substring(6));
        }
        this.descriptor = EventFields.parse(ready).get("desc");
    }

    /** Thrown when the peer program cannot open its transport (e.g. the backend is unavailable there). */
    static final class PeerStartException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        PeerStartException(String message) {
            super(message);
        }
    }

    String name() {
        return name;
    }

    /** The peer's transport descriptor, base64. */
    String descriptor() {
        return descriptor;
    }

    EventFields request(String command) {
        return control.request(command, REPLY_TIMEOUT);
    }

    EventFields request(String command, Duration timeout) {
        return control.request(command, timeout);
    }

    /** The first line received after index {@code from} that matches. */
    String await(int from, Predicate<String> match, Duration timeout, String what) {
        return control.await(from, match, timeout, what);
    }

    int mark() {
        return control.mark();
    }

    List<String> lines() {
        return control.lines();
    }

    boolean isRunning() {
        return container.isRunning();
    }

    /** What the peer's container wrote, from its start. */
    PeerLog output() {
        return output;
    }

    /**
     * Whether the peer still answers after another peer died, or is gone by UCX's abort in answering
     * the dead peer's emulated RMA ({@link PeerLog#emulatedRmaAbort}), the one known way a peer dies
     * with another.
     *
     * @param context what the failure message starts with (the backend, the peer that died)
     * @return empty when it answers a {@code PING}, UCX's line when it died of that abort
     * @throws AssertionError when it is gone in any other way, quoting its output and crash
     */
    Optional<String> answersOrDiedOfUcxAbort(String context) throws InterruptedException {
        if (isRunning()) {
            try {
                request("PING");
                return Optional.empty();
            } catch (AssertionError lost) {
                if (!awaitStopped(Duration.ofSeconds(10))) {
                    throw lost;
                }
            }
        }
        Optional<String> abort = output.emulatedRmaAbort();
        if (abort.isEmpty()) {
            throw new AssertionError(context + ": " + name + " is gone; its output ends: " + output.ending(12)
                    + "; where it crashed: " + output.nativeCrash());
        }
        return abort;
    }

    /**
     * Waits up to {@code timeout} for the container to stop running.
     *
     * @return whether it stopped
     */
    boolean awaitStopped(Duration timeout) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        while (container.isRunning()) {
            if (System.nanoTime() - end > 0) {
                return false;
            }
            Thread.sleep(100);
        }
        return true;
    }

    private static DockerClient docker() {
        return DockerClientFactory.instance().client();
    }

    /** The container's IPv4 address on the test's network, as the engine reports it now. */
    String address() {
        return docker().inspectContainerCmd(container.getContainerId()).exec().getNetworkSettings().getNetworks()
                .values().stream().filter(n -> network.getId().equals(n.getNetworkID()))
                .map(com.github.dockerjava.api.model.ContainerNetwork::getIpAddress)
                .filter(ip -> ip != null && !ip.isEmpty()).findFirst()
                .orElseThrow(() -> new AssertionError(name + " has no address on the test's network"));
    }

    /**
     * Runs {@code command} in the container ({@code docker exec}; not while it is paused).
     *
     * @throws AssertionError when it exits with another status than 0
     */
    void exec(String... command) {
        try {
            org.testcontainers.containers.Container.ExecResult r = container.execInContainer(command);
            if (r.getExitCode() != 0) {
                throw new AssertionError(name + ": " + String.join(" ", command) + " exited with " + r.getExitCode()
                        + ": " + r.getStderr().strip());
            }
        } catch (IOException e) {
            throw new AssertionError(name + ": could not run " + String.join(" ", command) + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(name + ": interrupted running " + String.join(" ", command), e);
        }
    }

    /** {@code docker kill -s KILL}: the peer dies at once; the kernel closes its sockets. */
    void kill() {
        docker().killContainerCmd(container.getContainerId()).withSignal("KILL").exec();
    }

    /** {@code docker network disconnect --force}: the peer's {@code eth0} disappears. */
    void disconnect() {
        docker().disconnectFromNetworkCmd().withNetworkId(network.getId())
                .withContainerId(container.getContainerId()).withForce(true).exec();
    }

    /** {@code docker network connect}: the peer gets an interface on the network again. */
    void reconnect() {
        docker().connectToNetworkCmd().withNetworkId(network.getId()).withContainerId(container.getContainerId())
                .exec();
    }

    /**
     * {@code docker pause}: every process of the peer is frozen (cgroup freezer); its kernel still
     * ACKs. The cgroup v1 freezer gives up ("unable to freeze") when a busy process does not reach a
     * freezable point within runc's retries, which happens on a loaded host; the pause is then
     * retried after thawing whatever was half frozen.
     */
    void pause() {
        for (int attempt = 1; ; attempt++) {
            try {
                docker().pauseContainerCmd(container.getContainerId()).exec();
                paused = true;
                return;
            } catch (com.github.dockerjava.api.exception.InternalServerErrorException e) {
                if (attempt == 5 || !String.valueOf(e.getMessage()).contains("unable to freeze")) {
                    throw e;
                }
                try {
                    docker().unpauseContainerCmd(container.getContainerId()).exec();
                } catch (RuntimeException ignored) {
                    // not paused: nothing to thaw
                }
                try {
                    Thread.sleep(200L * attempt);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    /** {@code docker unpause}. */
    void unpause() {
        docker().unpauseContainerCmd(container.getContainerId()).exec();
        paused = false;
    }

    @Override
    public void close() {
        if (paused) {
            unpause();
        }
        try {
            if (container.isRunning() && !control.ended()) {
                try {
                    control.request("CLOSE", Duration.ofSeconds(20));
                } catch (AssertionError ignored) {
                    // stopping the container below ends it anyway
                }
            }
        } finally {
            control.close();
            try {
                Files.write(logDir.resolve(name + ".control"), control.transcript());
            } catch (IOException ignored) {
                // the transcript is best effort
            }
            container.stop();
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
