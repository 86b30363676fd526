package io.blockxfer.multihost;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * The suite's knobs, read from system properties (the module's pom passes them on from Maven):
 * <ul>
 *   <li>{@code blockxfer.multihost.require} ({@code false}): when {@code true}, a missing engine,
 *       image or backend fails the suite instead of skipping it (CI sets it);</li>
 *   <li>{@code blockxfer.multihost.backends} ({@code ucx,nixl}): the backends to run;</li>
 *   <li>{@code blockxfer.multihost.soakSeconds} ({@code 300}): the soak's length;</li>
 *   <li>{@code blockxfer.multihost.image} ({@code blockxfer-peer-base:local}): the image
 *       {@code scripts/testhosts-image} builds;</li>
 *   <li>{@code blockxfer.multihost.peerClasspath}, {@code .peerClasses}: the file listing the
 *       peers' class path and the module's classes, set by the pom; {@code blockxfer.natives.dir}:
 *       the native libraries;
 *       {@code blockxfer.multihost.reportDir}: where timings and peer logs go.</li>
 * </ul>
 *
 * <p><b>Thread safety:</b> immutable.
 */
record MultihostSettings(boolean require, List<String> backends, Duration soak, String image, Path peerClasspath,
        Path peerClasses, Path nativesDir, Path reportDir, Path javaHome) {

    /** The settings of this JVM. */
    static MultihostSettings get() {
        return new MultihostSettings(
                Boolean.parseBoolean(prop("blockxfer.multihost.require", "false")),
                Arrays.stream(prop("blockxfer.multihost.backends", "ucx,nixl").split(","))
                        .map(String::trim).filter(s -> !s.isEmpty()).toList(),
                Duration.ofSeconds(Long.parseLong(prop("blockxfer.multihost.soakSeconds", "300"))),
                prop("blockxfer.multihost.image", "blockxfer-peer-base:local"),
                path("blockxfer.multihost.peerClasspath", "target/peer-classpath.txt"),
                path("blockxfer.multihost.peerClasses", "target/classes"),
                path("blockxfer.natives.dir", "../natives"),
                path("blockxfer.multihost.reportDir", "target/multihost-report"),
                Path.of(System.getProperty("java.home")));
    }

    private static String prop(String key, String fallback) {
        String v = System.getProperty(key);
        return v == null || v.isBlank() ? fallback : v.trim();
    }

    private static Path path(String key, String fallback) {
        return Path.of(prop(key, fallback)).toAbsolutePath().normalize();
    }

    /** Whether the native libraries folder exists (it is mounted only then). */
    boolean hasNatives() {
        return Files.isDirectory(nativesDir);
    }
}
