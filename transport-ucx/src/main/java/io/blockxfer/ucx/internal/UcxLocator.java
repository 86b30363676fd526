package io.blockxfer.ucx.internal;

import io.blockxfer.transport.internal.natives.NativesFolder;
import io.blockxfer.ucx.UcxOptions;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * Finds the UCX libraries without loading anything: a directory named by
 * {@value UcxOptions#LIBDIR_PROPERTY} or {@value UcxOptions#LIBDIR_ENV}, else
 * {@value #WHEEL_LIB_DIR} in the project's natives folder ({@link NativesFolder}: the property
 * {@value UcxOptions#NATIVES_DIR_PROPERTY}, the variable {@value UcxOptions#NATIVES_DIR_ENV}, or a
 * {@code natives/} folder found walking up from the working directory), else the system's library
 * path. A directory named explicitly must hold every library; a natives folder without UCX (or a
 * named natives folder that does not exist) falls through, and the miss is remembered for the
 * unavailability cause.
 *
 * <p><b>Thread safety:</b> stateless; {@link Location} is immutable.
 */
public final class UcxLocator {

    /** The UCX libraries in load order: each one's UCX dependencies come before it. */
    public static final List<String> LIBRARIES = List.of("libucm.so.0", "libucs.so.0", "libuct.so.0", "libucp.so.0");
    /** Where {@code scripts/install-natives} puts the wheel's libraries, below the natives folder. */
    public static final String WHEEL_LIB_DIR = "ucx/libucx/lib";

    private UcxLocator() {
    }

    /**
     * Where to load UCX from: a directory holding {@link #LIBRARIES}, or (directory null) the
     * system's dynamic linker search path.
     *
     * @param dir the directory, or null for the system's libraries
     * @param origin how it was chosen, for messages
     * @param misses natives folders looked at that held no UCX
     *
     * <p><b>Thread safety:</b> immutable.
     */
    public record Location(@Nullable Path dir, String origin, List<String> misses) {
        /** Whether this location is the system's library search path. */
        public boolean isSystem() {
            return dir == null;
        }

        @Override
        public String toString() {
            return dir == null ? origin : dir + " (" + origin + ")";
        }
    }

    /**
     * Thrown when a directory named explicitly cannot be used; the message names the exact cause.
     *
     * <p><b>Thread safety:</b> immutable after construction.
     */
    public static final class LocationException extends Exception {
        private static final long serialVersionUID = 1L;

        LocationException(String message) {
            super(message);
        }
    }

    /** Locates UCX for this process (system properties, environment, working directory). */
    public static Location locate() throws LocationException {
        return locate(System::getProperty, System::getenv, Path.of(System.getProperty("user.dir", ".")));
    }

    /**
     * Locates UCX from the given settings.
     *
     * @param properties system properties by name (null when unset)
     * @param environment environment variables by name (null when unset)
     * @param workingDir where to start looking for a {@code natives/} folder
     * @throws LocationException if an explicitly named directory is missing or incomplete
     */
    public static Location locate(UnaryOperator<String> properties, UnaryOperator<String> environment,
            Path workingDir) throws LocationException {
        String explicit = nonBlank(properties.apply(UcxOptions.LIBDIR_PROPERTY));
        if (explicit != null) {
            return checked(path(explicit, "system property " + UcxOptions.LIBDIR_PROPERTY),
                    "system property " + UcxOptions.LIBDIR_PROPERTY);
        }
        explicit = nonBlank(environment.apply(UcxOptions.LIBDIR_ENV));
        if (explicit != null) {
            return checked(path(explicit, "environment variable " + UcxOptions.LIBDIR_ENV),
                    "environment variable " + UcxOptions.LIBDIR_ENV);
        }
        List<String> misses = new ArrayList<>();
        Optional<NativesFolder> natives = NativesFolder.find(properties, environment, workingDir, misses);
        if (natives.isPresent()) {
            Path dir = natives.get().resolve(WHEEL_LIB_DIR);
            String missing = firstMissing(dir);
            if (missing == null) {
                return new Location(dir, "natives folder from " + natives.get().origin(), List.of());
            }
            misses.add("natives folder " + natives.get() + " holds no UCX (" + dir.resolve(missing)
                    + " is missing; run scripts/install-natives ucx)");
        }
        return new Location(null, "the system's library path (libucp.so.0 through the dynamic linker)",
                List.copyOf(misses));
    }

    /** The first of {@link #LIBRARIES} that is not a readable file in {@code dir}, or null. */
    public static @Nullable String firstMissing(Path dir) {
        for (String lib : LIBRARIES) {
            if (!Files.isRegularFile(dir.resolve(lib)) || !Files.isReadable(dir.resolve(lib))) {
                return lib;
            }
        }
        return null;
    }

    private static Location checked(Path dir, String origin) throws LocationException {
        if (!Files.isDirectory(dir)) {
            throw new LocationException("UCX library directory " + dir + " (from " + origin + ") does not exist");
        }
        String missing = firstMissing(dir);
        if (missing != null) {
            throw new LocationException("UCX library directory " + dir + " (from " + origin + ") lacks "
                    + dir.resolve(missing) + "; it must hold " + String.join(", ", LIBRARIES));
        }
        return new Location(dir, origin, List.of());
    }

    private static Path path(String value, String origin) throws LocationException {
        try {
            return Path.of(value).toAbsolutePath().normalize();
        } catch (InvalidPathException e) {
            throw new LocationException("invalid path '" + value + "' in " + origin + ": " + e.getMessage());
        }
    }

    private static @Nullable String nonBlank(@Nullable String s) {
        return s == null || s.isBlank() ? null : s.trim();
    }
}
