package io.blockxfer.multihost;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.testcontainers.containers.BindMode;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.output.OutputFrame;
import org.testcontainers.utility.DockerImageName;

/**
 * One peer container: the local base image (never pulled), the test JVM's JDK, the peers' jars and
 * classes and the native libraries bind-mounted read-only, the control directory bind-mounted
 * read-write, and {@link PeerMain} as its command. Its output goes to a log file.
 *
 * <p>Mounts: JDK at {@code /opt/jdk}, class-path entries under {@code /opt/blockxfer/cp}, the
 * module's classes at {@code /opt/blockxfer/classes}, natives at {@code /opt/blockxfer/natives} (passed as
 * {@code blockxfer.natives.dir}), control directory at {@code /ctl}.
 *
 * <p><b>Thread safety:</b> as {@link GenericContainer}: configure and start from one thread.
 */
final class PeerContainer extends GenericContainer<PeerContainer> {

    PeerContainer(MultihostSettings settings, PeerClasspath classpath, BackendProfile backend, Network network,
            String name, Path controlDir, Path logFile, List<String> peerArgs) {
        super(DockerImageName.parse(settings.image()));
        withImagePullPolicy(image -> false);
        withNetwork(network);
        withNetworkAliases(name);
        withCreateContainerCmdModifier(cmd -> cmd.withHostName(name));
        withLabel("io.blockxfer.multihost", "peer");
        withFileSystemBind(settings.javaHome().toString(), "/opt/jdk", BindMode.READ_ONLY);
        for (PeerClasspath.Entry e : classpath.entries()) {
            withFileSystemBind(e.host().toString(), e.container(), BindMode.READ_ONLY);
        }
        withFileSystemBind(settings.peerClasses().toString(), "/opt/blockxfer/classes", BindMode.READ_ONLY);
        if (settings.hasNatives()) {
            withFileSystemBind(settings.nativesDir().toString(), "/opt/blockxfer/natives", BindMode.READ_ONLY);
        }
        withFileSystemBind(controlDir.toString(), "/ctl", BindMode.READ_WRITE);
        for (Map.Entry<String, String> e : backend.env().entrySet()) {
            withEnv(e.getKey(), e.getValue());
        }
        List<String> cmd = new ArrayList<>(List.of("/opt/jdk/bin/java", "--enable-native-access=ALL-UNNAMED",
                "-Xmx256m", "-XX:+UseSerialGC", "-XX:-UsePerfData",
                "-Dblockxfer.natives.dir=/opt/blockxfer/natives",
                "-cp", classpath.containerClasspath("/opt/blockxfer/classes"),
                PeerMain.class.getName(),
                "--control", ControlEndpoint.CONTAINER_SOCKET, "--backend", backend.name(), "--agent", name));
        cmd.addAll(peerArgs);
        backend.options().forEach((k, v) -> {
            cmd.add("--opt");
            cmd.add(k + "=" + v);
        });
        withCommand(cmd.toArray(String[]::new));
        withLogConsumer(new FileLog(logFile));
    }

    /** Appends a container's output to a file. */
    private static final class FileLog implements java.util.function.Consumer<OutputFrame> {
        private final OutputStream out;

        FileLog(Path file) {
            try {
                Files.createDirectories(file.getParent());
                out = Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            } catch (IOException e) {
                throw new IllegalStateException("cannot write " + file, e);
            }
        }

        @Override
        public synchronized void accept(OutputFrame frame) {
            try {
                if (frame.getType() == OutputFrame.OutputType.END) {
                    out.write("[container output ended]\n".getBytes(StandardCharsets.UTF_8));
                    out.close();
                    return;
                }
                byte[] bytes = frame.getBytes();
                if (bytes != null) {
                    out.write(bytes);
                    out.flush();
                }
            } catch (IOException ignored) {
                // the log is best effort
            }
        }
    }
}
