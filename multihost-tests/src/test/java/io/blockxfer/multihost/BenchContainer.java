package io.blockxfer.multihost;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.testcontainers.containers.BindMode;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.utility.DockerImageName;

/**
 * A container that runs the {@code blockxfer} command ({@code io.blockxfer.cli.BlockxferCli}) with
 * the peers' mounts: the local base image (never pulled), the test JVM's JDK at {@code /opt/jdk},
 * the peers' class path (which holds the command-line tool) and the natives, all read-only.
 *
 * <p><b>Thread safety:</b> as {@link GenericContainer}: configure and start from one thread.
 */
final class BenchContainer extends GenericContainer<BenchContainer> {

    BenchContainer(MultihostSettings settings, PeerClasspath classpath, Network network, String name,
            Map<String, String> env, List<String> args) {
        super(DockerImageName.parse(settings.image()));
        withImagePullPolicy(image -> false);
        withNetwork(network);
        withNetworkAliases(name);
        withCreateContainerCmdModifier(cmd -> cmd.withHostName(name));
        withLabel("io.blockxfer.multihost", "bench");
        withFileSystemBind(settings.javaHome().toString(), "/opt/jdk", BindMode.READ_ONLY);
        for (PeerClasspath.Entry e : classpath.entries()) {
            withFileSystemBind(e.host().toString(), e.container(), BindMode.READ_ONLY);
        }
        withFileSystemBind(settings.peerClasses().toString(), "/opt/blockxfer/classes", BindMode.READ_ONLY);
        if (settings.hasNatives()) {
            withFileSystemBind(settings.nativesDir().toString(), "/opt/blockxfer/natives", BindMode.READ_ONLY);
        }
        env.forEach(this::withEnv);
        List<String> cmd = new ArrayList<>(List.of("/opt/jdk/bin/java", "--enable-native-access=ALL-UNNAMED",
                "-Xmx512m", "-XX:-UsePerfData", "-Dblockxfer.natives.dir=/opt/blockxfer/natives",
                "-cp", classpath.containerClasspath("/opt/blockxfer/classes"), "io.blockxfer.cli.BlockxferCli"));
        cmd.addAll(args);
        withCommand(cmd.toArray(String[]::new));
    }
}
