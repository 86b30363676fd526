package io.blockxfer.multihost;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * What {@code scripts/soak} runs: one {@link ServiceSoak} initiator process per backend, one after
 * the other, each with its backend's {@link SameHostProfile} environment (which its target
 * processes inherit), a fixed, pre-touched heap (so the heap adds nothing to the RSS trend), and
 * this JVM's class path and {@code blockxfer.*} system properties.
 *
 * <p>Arguments: {@code --backend ucx,nixl,loopback} (default {@code ucx,nixl}), {@code --report DIR}
 * (default {@code target/soak}; each backend writes into {@code DIR/<backend>}); everything else
 * goes to {@link ServiceSoak} unchanged ({@code --minutes}, {@code --seconds}, {@code --ucx-tls},
 * ...). Exit status: 0 when every soak passed, else the first failing soak's status (a backend
 * that is unavailable here counts as failing).
 *
 * <p><b>Thread safety:</b> a program; the helpers are stateless.
 */
public final class SoakLauncher {

    private SoakLauncher() {
    }

    /** Runs the soaks; see the class comment. */
    public static void main(String[] args) throws IOException, InterruptedException {
        List<String> backends = List.of("ucx", "nixl");
        Path report = Path.of("target/soak");
        List<String> rest = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--backend") && i + 1 < args.length) {
                backends = Arrays.stream(args[++i].split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
            } else if (args[i].equals("--report") && i + 1 < args.length) {
                report = Path.of(args[++i]);
            } else {
                rest.add(args[i]);
            }
        }
        int status = 0;
        List<String> summary = new ArrayList<>();
        for (String backend : backends) {
            Path dir = report.resolve(backend).toAbsolutePath();
            System.out.println("=== soak of " + backend + " (report in " + dir + ") ===");
            Process p = start(backend, dir, rest, null);
            int rc = p.waitFor();
            summary.add(backend + ": " + switch (rc) {
                case ServiceSoak.PASSED -> "passed";
                case ServiceSoak.FAILED -> "FAILED";
                case ServiceSoak.UNAVAILABLE -> "UNAVAILABLE here";
                default -> "did not run (exit status " + rc + ")";
            });
            if (status == 0) {
                status = rc;
            }
        }
        System.out.println();
        summary.forEach(System.out::println);
        System.exit(status);
    }

    /**
     * Starts the initiator process of one soak.
     *
     * @param reportDir where it writes its report
     * @param args arguments for {@link ServiceSoak} besides {@code --backend} and {@code --report}
     * @param output where its output goes, or null to share this process's
     */
    static Process start(String backend, Path reportDir, List<String> args, File output) throws IOException {
        String tls = "sm";
        for (int i = 0; i + 1 < args.size(); i++) {
            if (args.get(i).equals("--ucx-tls")) {
                tls = args.get(i + 1);
            }
        }
        SameHostProfile profile = SameHostProfile.of(backend, tls);
        List<String> cmd = new ArrayList<>();
        cmd.add(javaBinary());
        cmd.addAll(List.of("--enable-native-access=ALL-UNNAMED", "-Xms512m", "-Xmx512m", "-XX:+AlwaysPreTouch",
                "-XX:-UsePerfData"));
        cmd.addAll(blockxferProperties());
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), ServiceSoak.class.getName(),
                "--backend", backend, "--report", reportDir.toString()));
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd);
        Map<String, String> env = pb.environment();
        env.putAll(profile.env());
        if (output == null) {
            pb.inheritIO();
        } else {
            pb.redirectErrorStream(true).redirectOutput(output)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        }
        return pb.start();
    }

    /** This JVM's {@code java} launcher. */
    static String javaBinary() {
        return ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    /** This JVM's {@code blockxfer.*} system properties as {@code -D} options, except the test kits' own. */
    static List<String> blockxferProperties() {
        List<String> out = new ArrayList<>();
        System.getProperties().forEach((k, v) -> {
            String key = String.valueOf(k);
            if (key.startsWith("blockxfer.") && !key.startsWith("blockxfer.tck.") && !key.startsWith("blockxfer.soak.")
                    && !key.startsWith("blockxfer.multihost.")) {
                out.add("-D" + key + "=" + v);
            }
        });
        return out;
    }
}
