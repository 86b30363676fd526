package io.blockxfer.transport.spi;

import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.TransportConfig;
import java.util.Set;

/**
 * A backend, found through {@link java.util.ServiceLoader}. Register implementations with
 * {@code @AutoService(TransportProvider.class)} and a {@code provides} clause in
 * {@code module-info.java}.
 *
 * <p>The constructor must be cheap and must not touch native code. {@link #availability()} probes
 * once, by really loading the backend's native library, and caches the outcome; a load error is
 * reported, never swallowed.
 *
 * <p><b>Thread safety:</b> implementations must be thread-safe.
 */
public interface TransportProvider {

    /** The backend's name: lowercase, e.g. {@code "ucx"}; used to select it. */
    String name();

    /**
     * The priority among available backends when none is asked for by name; higher wins,
     * 0 to 10 (loopback is 0, native backends higher).
     */
    int priority();

    /** Whether the backend can run here, probed once. */
    Availability availability();

    /** The optional abilities of this backend. */
    Set<Capability> capabilities();

    /** The version of the native library behind the backend, or {@code ""} when there is none. */
    default String nativeVersion() {
        return "";
    }

    /**
     * Opens a transport.
     *
     * @throws io.blockxfer.transport.TransportUnavailableException if the backend is unavailable
     * @throws IllegalArgumentException if the config asks for something the backend cannot do
     */
    DataTransport open(TransportConfig config);
}
