package io.blockxfer.ucx;

import static org.junit.jupiter.api.Assertions.fail;

import io.blockxfer.transport.spi.Availability;
import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;

/**
 * What the backend's own tests share: the availability gate the TCK applies (skip with the cause
 * where UCX is absent, fail when {@code blockxfer.tck.require} names {@code ucx}), and the command
 * line of a child JVM on this test class path.
 *
 * <p><b>Thread safety:</b> stateless.
 */
public final class UcxTestSupport {

    private UcxTestSupport() {
    }

    /** Skips the calling test where UCX is unavailable, or fails it where UCX is required. */
    public static void requireUcx() {
        Availability a = new UcxProvider().availability();
        if (a.isAvailable()) {
            return;
        }
        String cause = "ucx is unavailable: " + a.cause();
        String required = System.getProperty("blockxfer.tck.require", "");
        if (required.isBlank()) {
            required = System.getenv().getOrDefault("BLOCKXFER_TCK_REQUIRE", "");
        }
        for (String r : required.split(",", -1)) {
            if (r.trim().equals(UcxProvider.NAME)) {
                fail(cause + " (required by blockxfer.tck.require)", a.error().orElse(null));
            }
        }
        Assumptions.abort(cause);
    }

    /**
     * {@code java} with this JVM's class path, native access, the {@code blockxfer.*} system
     * properties except {@code extraProperties} overrides, and a private temporary directory.
     */
    public static List<String> javaCommand(String mainClass, List<String> extraProperties, List<String> args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.add("-Xmx512m");
        List<String> overridden = extraProperties.stream().map(p -> p.substring(2, p.indexOf('='))).toList();
        System.getProperties().forEach((k, v) -> {
            String key = String.valueOf(k);
            if (key.startsWith("blockxfer.") && !overridden.contains(key)) {
                cmd.add("-D" + key + "=" + v);
            }
        });
        cmd.addAll(extraProperties);
        cmd.add("-Djava.io.tmpdir=" + ChildTemp.directory());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path") + File.pathSeparator);
        cmd.add(mainClass);
        cmd.addAll(args);
        return cmd;
    }
}
