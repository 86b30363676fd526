package io.blockxfer.transport.internal.natives;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The project's {@code natives/} folder, where {@code scripts/install-natives} puts the pinned
 * native libraries, each backend's in a sub-folder of its own. It is found without loading
 * anything; first match wins:
 * <ol>
 *   <li>the system property {@value #PROPERTY};</li>
 *   <li>the environment variable {@value #ENV};</li>
 *   <li>a folder named {@code natives} in the start folder (the working directory) or one above it.</li>
 * </ol>
 * A folder named by the property or the variable that does not exist (or is no valid path) is
 * skipped, and the trace says so. What a backend looks for inside the folder (which wheel, which
 * library files, which release) is the backend's business.
 *
 * <p><b>Thread safety:</b> immutable; {@link #find} is stateless and may run concurrently (each
 * caller passes its own trace list).
 *
 * @param dir the folder, absolute and normalized
 * @param origin how it was found, for messages (e.g. {@code system property blockxfer.natives.dir})
 */
public record NativesFolder(Path dir, String origin) {

    /** System property: the project's natives folder. */
    public static final String PROPERTY = "blockxfer.natives.dir";
    /** Environment variable: the project's natives folder. */
    public static final String ENV = "BLOCKXFER_NATIVES_DIR";
    /** The folder's name, looked for walking up from the start folder. */
    public static final String NAME = "natives";

    /** Checks the components. */
    public NativesFolder {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(origin, "origin");
    }

    /**
     * Looks for the natives folder of this JVM: its system properties, its environment and its
     * working directory ({@code user.dir}).
     *
     * @param trace receives one line per miss (see {@link #find(Function, Function, Path, List)})
     */
    public static Optional<NativesFolder> find(List<String> trace) {
        return find(System::getProperty, System::getenv, Path.of(System.getProperty("user.dir", ".")), trace);
    }

    /**
     * Looks for the natives folder.
     *
     * @param properties system properties by name (null when unset)
     * @param environment environment variables by name (null when unset)
     * @param start where to start walking up
     * @param trace receives one line per miss: each named folder skipped, and why none was found
     *     when none was (the folder found is the caller's to report, with what it found inside)
     * @return the folder, or empty when there is none
     */
    public static Optional<NativesFolder> find(Function<String, ? extends @Nullable String> properties,
            Function<String, ? extends @Nullable String> environment, Path start, List<String> trace) {
        Optional<NativesFolder> named = named(properties.apply(PROPERTY), "system property " + PROPERTY, trace);
        if (named.isPresent()) {
            return named;
        }
        named = named(environment.apply(ENV), "environment variable " + ENV, trace);
        if (named.isPresent()) {
            return named;
        }
        Path from = start.toAbsolutePath().normalize();
        for (Path p = from; p != null; p = p.getParent()) {
            Path candidate = p.resolve(NAME);
            if (Files.isDirectory(candidate)) {
                return Optional.of(new NativesFolder(candidate, "natives/ found above " + from));
            }
        }
        trace.add("no natives folder (" + PROPERTY + ", " + ENV + ", or natives/ above " + from + ")");
        return Optional.empty();
    }

    /** {@code <natives>/<subFolder>}. */
    public Path resolve(String subFolder) {
        return dir.resolve(subFolder);
    }

    @Override
    public String toString() {
        return dir + " (" + origin + ")";
    }

    private static Optional<NativesFolder> named(@Nullable String value, String origin, List<String> trace) {
        if (value == null || value.isBlank()) {
            return Optional.empty();
        }
        Path dir;
        try {
            dir = Path.of(value.trim()).toAbsolutePath().normalize();
        } catch (InvalidPathException e) {
            trace.add("natives folder from " + origin + " is no valid path, skipped: '" + value + "' ("
                    + e.getMessage() + ")");
            return Optional.empty();
        }
        if (!Files.isDirectory(dir)) {
            trace.add("natives folder from " + origin + " does not exist, skipped: " + dir);
            return Optional.empty();
        }
        return Optional.of(new NativesFolder(dir, origin));
    }
}
