package io.blockxfer.ucx.internal;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * What a {@code UCX_TLS} value lets UCX use, as far as the backend's defaults care: shared memory
 * (the {@code sysv} and {@code posix} transports that {@code UCX_MM_ERROR_HANDLING} configures) and
 * {@code tcp}. The value is a comma-separated list of transports and aliases ({@code all},
 * {@code sm} or {@code shm}, {@code mm}, ...), or a list of excluded ones after a {@code ^}; none
 * means {@code all}. UCX warns of a transport setting that no transport in use read, so the
 * backend sets one only for a transport UCX may use.
 *
 * <p><b>Thread safety:</b> immutable.
 */
final class UcxTransportList {

    private static final List<String> SHARED_MEMORY = List.of("all", "sm", "shm", "mm", "sysv", "posix");
    private static final List<String> TCP = List.of("all", "tcp");

    private final boolean exclude;
    private final List<String> names;

    private UcxTransportList(boolean exclude, List<String> names) {
        this.exclude = exclude;
        this.names = names;
    }

    /** The list {@code tls} names; null or blank is UCX's default, every transport. */
    static UcxTransportList of(@Nullable String tls) {
        if (tls == null || tls.isBlank()) {
            return new UcxTransportList(true, List.of());
        }
        String text = tls.strip().toLowerCase(Locale.ROOT);
        boolean exclude = text.startsWith("^");
        if (exclude) {
            text = text.substring(1);
        }
        // a leading backslash asks UCX not to expand aliases; the names stay the same
        List<String> names = Arrays.stream(text.split(",")).map(String::strip).map(n -> n.startsWith("\\")
                ? n.substring(1) : n).filter(n -> !n.isEmpty()).toList();
        return new UcxTransportList(exclude, names);
    }

    /** Whether UCX may use a shared-memory transport ({@code sysv} or {@code posix}). */
    boolean sharedMemory() {
        if (exclude) {
            return !(names.contains("sm") || names.contains("shm") || names.contains("mm")
                    || (names.contains("sysv") && names.contains("posix")));
        }
        return names.stream().anyMatch(SHARED_MEMORY::contains);
    }

    /** Whether UCX may use {@code tcp}. */
    boolean tcp() {
        if (exclude) {
            return !names.contains("tcp");
        }
        return names.stream().anyMatch(TCP::contains);
    }
}
