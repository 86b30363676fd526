package io.blockxfer.ucx;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A temporary directory for child JVMs under the module's build folder: JUCX extracts its JNI
 * library into a fresh folder of {@code java.io.tmpdir} per process and only a normal exit removes
 * it, so SIGKILLed children would otherwise leave one behind in {@code /tmp} each.
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
final class ChildTemp {

    private ChildTemp() {
    }

    /** {@code target/child-tmp} of this module, created on demand. */
    static synchronized Path directory() {
        Path dir = Path.of("target", "child-tmp").toAbsolutePath();
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return dir;
    }
}
