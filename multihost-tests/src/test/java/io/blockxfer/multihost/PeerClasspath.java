package io.blockxfer.multihost;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The peers' class path: the module's runtime class path that Maven writes to a file
 * ({@code dependency:build-classpath}), each entry (a jar, or a module's output folder in a reactor
 * build) bind-mounted read-only into every container under {@code /opt/blockxfer/cp/}.
 *
 * <p><b>Thread safety:</b> immutable.
 */
final class PeerClasspath {

    /** One host path and where the container sees it. */
    record Entry(Path host, String container) {
    }

    private final List<Entry> entries;

    private PeerClasspath(List<Entry> entries) {
        this.entries = List.copyOf(entries);
    }

    /**
     * Reads the class-path file.
     *
     * @throws IOException if it cannot be read
     */
    static PeerClasspath read(Path file) throws IOException {
        String text = Files.readString(file).trim();
        List<Entry> entries = new ArrayList<>();
        if (!text.isEmpty()) {
            List<String> parts = Arrays.asList(text.split(File.pathSeparator));
            for (int i = 0; i < parts.size(); i++) {
                Path host = Path.of(parts.get(i).trim());
                String leaf = host.getFileName().toString().replaceAll("[^A-Za-z0-9._-]", "_");
                entries.add(new Entry(host, String.format("/opt/blockxfer/cp/%02d-%s", i, leaf)));
            }
        }
        return new PeerClasspath(entries);
    }

    List<Entry> entries() {
        return entries;
    }

    /** The container-side class path, after {@code first}. */
    String containerClasspath(String first) {
        StringBuilder sb = new StringBuilder(first);
        for (Entry e : entries) {
            sb.append(':').append(e.container());
        }
        return sb.toString();
    }

    /** Whether an entry looks like the given backend's module ({@code transport-<name>}). */
    boolean hasBackend(String backend) {
        String module = "transport-" + backend;
        return entries.stream().anyMatch(e -> e.host().toString().contains("/" + module + "/")
                || e.host().getFileName().toString().startsWith(module + "-"));
    }
}
