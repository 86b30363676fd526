package io.blockxfer.transport.spi;

import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Whether a backend can run here and, if not, why: a human-readable cause and the load error,
 * never swallowed.
 *
 * <p><b>Thread safety:</b> immutable.
 */
public final class Availability {

    private static final Availability AVAILABLE = new Availability(true, "available", null);

    private final boolean available;
    private final String cause;
    private final @Nullable Throwable error;

    private Availability(boolean available, String cause, @Nullable Throwable error) {
        this.available = available;
        this.cause = cause;
        this.error = error;
    }

    /** The backend is usable. */
    public static Availability available() {
        return AVAILABLE;
    }

    /** The backend is not usable, for {@code cause}. */
    public static Availability unavailable(String cause) {
        return new Availability(false, Objects.requireNonNull(cause, "cause"), null);
    }

    /** The backend is not usable, for {@code cause}, because of {@code error}. */
    public static Availability unavailable(String cause, @Nullable Throwable error) {
        return new Availability(false, Objects.requireNonNull(cause, "cause"), error);
    }

    /** Whether the backend is usable. */
    public boolean isAvailable() {
        return available;
    }

    /** Why the backend is unavailable, or {@code "available"}. */
    public String cause() {
        return cause;
    }

    /** The load or probe error behind the cause, if any. */
    public Optional<Throwable> error() {
        return Optional.ofNullable(error);
    }

    @Override
    public String toString() {
        return available ? "available" : "unavailable: " + cause;
    }
}
