package io.blockxfer.multihost;

import com.github.dockerjava.api.exception.NotFoundException;
import java.nio.file.Files;
import java.util.Optional;
import org.testcontainers.DockerClientFactory;

/**
 * What the suite needs before it can start a container: a reachable Docker engine, the local
 * base image (never pulled), and the peers' class path. Probed once per JVM.
 *
 * <p><b>Thread safety:</b> thread-safe; the probe runs once under the class lock.
 */
final class Preflight {

    private static Optional<String> problem;

    private Preflight() {
    }

    /** Why the suite cannot run here, or empty when it can. */
    static synchronized Optional<String> problem() {
        if (problem == null) {
            problem = Optional.ofNullable(probe(MultihostSettings.get()));
        }
        return problem;
    }

    private static String probe(MultihostSettings settings) {
        if (!Files.isRegularFile(settings.peerClasspath())) {
            return "the peers' class path file " + settings.peerClasspath() + " is missing; build the module with"
                    + " Maven (process-classes writes it)";
        }
        boolean engine;
        try {
            engine = DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException e) {
            engine = false;
        }
        if (!engine) {
            return "no Docker engine reachable (DOCKER_HOST=" + System.getenv("DOCKER_HOST")
                    + "); start one with scripts/testhosts-dockerd start and export the DOCKER_HOST it prints";
        }
        try {
            DockerClientFactory.instance().client().inspectImageCmd(settings.image()).exec();
        } catch (NotFoundException e) {
            return "image " + settings.image() + " is not in the engine and is never pulled; build it with"
                    + " scripts/testhosts-image";
        }
        return null;
    }
}
