package io.blockxfer.nixl.internal;

import io.blockxfer.nixl.NixlOptions;
import io.blockxfer.transport.ProgressMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The agent configuration read from a transport's {@link NixlOptions options} and progress mode:
 * the seed's agent config (backends, UCX thread count as the UCX parameter {@code num_threads},
 * progress thread, telemetry capture) plus the progress delay, the telemetry history and the idle
 * connections kept.
 *
 * <p>NIXL's status call progresses the UCX worker itself, so a poll always drives; what the mode
 * sets is how NIXL's own progress thread stands beside it. {@link ProgressMode#POLLING_THREAD}
 * (what {@link ProgressMode#AUTO} is): the thread is the fallback. It still wakes at once for an
 * event of the worker (a message from a peer, a connection), but otherwise only every
 * {@value NixlOptions#DEFAULT_FALLBACK_DELAY_MICROS} us, and the worker's lock is a mutex (UCX's
 * {@code USE_MT_MUTEX}, through the UCX backend's {@code engine_config}) so that the thread, when
 * it does look in during a caller's copy, sleeps on the lock instead of spinning against the
 * thread that holds it. {@link ProgressMode#BACKEND_THREAD}: the thread looks every
 * {@value NixlOptions#DEFAULT_PROGRESS_DELAY_MICROS} us (NIXL rounds up to 1 ms) with UCX's
 * spinlock, as NIXL's defaults have it. An explicit {@link NixlOptions#PROGRESS_DELAY_MICROS} or a
 * {@code USE_MT_MUTEX} in {@code nixl.ucx.engine_config} wins over the mode, and so does a
 * {@code UCX_USE_MT_MUTEX} environment variable (NIXL leaves set UCX variables alone).
 *
 * <p><b>Thread safety:</b> immutable.
 *
 * @param backends NIXL backends to create, in order
 * @param backendParams per backend (upper case as given), its parameters
 * @param progressThread whether NIXL's progress thread runs
 * @param progressMode the progress mode resolved ({@link ProgressMode#AUTO} never)
 * @param progressDelayMicros how long the progress thread waits for a worker event before it looks anyway
 * @param telemetry whether NIXL captures per-transfer telemetry
 * @param telemetryHistory how many transfers the telemetry ring keeps
 * @param idleConnections how many connections to removed peers stay open for re-adding
 * @param hugePages whether a region the backend allocates is advised to transparent huge pages
 */
public record NixlSettings(List<String> backends, Map<String, Map<String, String>> backendParams,
        boolean progressThread, ProgressMode progressMode, long progressDelayMicros, boolean telemetry,
        int telemetryHistory, int idleConnections, boolean hugePages) {

    /** The UCX context setting that makes the worker's lock a mutex. */
    static final String MT_MUTEX = "USE_MT_MUTEX";
    /** The UCX backend parameter that carries UCX settings. */
    static final String ENGINE_CONFIG = "engine_config";

    /** What {@link ProgressMode#AUTO} is for NIXL: the mode that measured best under contention. */
    public static ProgressMode resolve(ProgressMode mode) {
        return mode == ProgressMode.AUTO ? ProgressMode.POLLING_THREAD : mode;
    }

    /**
     * Reads the options for the default progress mode.
     *
     * @throws IllegalArgumentException for an unknown {@code nixl.} key or a bad value
     */
    public static NixlSettings from(Map<String, String> options) {
        return from(options, ProgressMode.AUTO);
    }

    /**
     * Reads the options for a transport in progress mode {@code mode}.
     *
     * @throws IllegalArgumentException for an unknown {@code nixl.} key or a bad value
     */
    public static NixlSettings from(Map<String, String> options, ProgressMode mode) {
        ProgressMode resolved = resolve(Objects.requireNonNull(mode, "mode"));
        boolean fallback = resolved == ProgressMode.POLLING_THREAD;
        List<String> backends = new ArrayList<>();
        for (String b : options.getOrDefault(NixlOptions.BACKENDS, NixlOptions.DEFAULT_BACKENDS).split(",", -1)) {
            String name = b.trim();
            if (name.isEmpty()) {
                continue;
            }
            if (!name.chars().allMatch(c -> Character.isLetterOrDigit(c) || c == '_')) {
                throw new IllegalArgumentException(NixlOptions.BACKENDS + ": bad backend name '" + name + "'");
            }
            if (backends.contains(name)) {
                throw new IllegalArgumentException(NixlOptions.BACKENDS + " lists '" + name + "' twice");
            }
            backends.add(name);
        }
        if (backends.isEmpty()) {
            throw new IllegalArgumentException(NixlOptions.BACKENDS + " names no backend");
        }
        boolean progress = bool(options, NixlOptions.PROGRESS_THREAD, true);
        long delay = number(options, NixlOptions.PROGRESS_DELAY_MICROS, fallback
                ? NixlOptions.DEFAULT_FALLBACK_DELAY_MICROS : NixlOptions.DEFAULT_PROGRESS_DELAY_MICROS, 0, 1_000_000);
        boolean telemetry = bool(options, NixlOptions.TELEMETRY, true);
        int history = (int) number(options, NixlOptions.TELEMETRY_HISTORY, NixlOptions.DEFAULT_TELEMETRY_HISTORY, 1,
                1 << 20);
        int idle = (int) number(options, NixlOptions.IDLE_CONNECTIONS, NixlOptions.DEFAULT_IDLE_CONNECTIONS, 0,
                1 << 16);
        boolean hugePages = bool(options, NixlOptions.HUGE_PAGES, true);
        Map<String, Map<String, String>> params = new LinkedHashMap<>();
        for (String b : backends) {
            params.put(b, new LinkedHashMap<>());
        }
        for (Map.Entry<String, String> e : options.entrySet()) {
            String key = e.getKey();
            if (!key.startsWith("nixl.") || key.equals(NixlOptions.BACKENDS) || key.equals(NixlOptions.PROGRESS_THREAD)
                    || key.equals(NixlOptions.PROGRESS_DELAY_MICROS) || key.equals(NixlOptions.TELEMETRY)
                    || key.equals(NixlOptions.TELEMETRY_HISTORY) || key.equals(NixlOptions.IDLE_CONNECTIONS)
                    || key.equals(NixlOptions.HUGE_PAGES)) {
                continue;
            }
            String rest = key.substring("nixl.".length());
            int dot = rest.indexOf('.');
            String backend = dot > 0 ? matchBackend(backends, rest.substring(0, dot)) : null;
            if (backend == null || dot == rest.length() - 1) {
                throw new IllegalArgumentException("unknown NIXL option '" + key + "': expected one of "
                        + List.of(NixlOptions.BACKENDS, NixlOptions.PROGRESS_THREAD, NixlOptions.PROGRESS_DELAY_MICROS,
                                NixlOptions.TELEMETRY, NixlOptions.TELEMETRY_HISTORY, NixlOptions.IDLE_CONNECTIONS,
                                NixlOptions.HUGE_PAGES)
                        + " or nixl.<backend>.<param> for a backend in " + backends);
            }
            // matchBackend answers only names in backends, and each of them has its map
            Objects.requireNonNull(params.get(backend), backend).put(rest.substring(dot + 1), e.getValue());
        }
        String ucxBackend = matchBackend(backends, "ucx");
        if (fallback && ucxBackend != null) {
            Map<String, String> ucx = Objects.requireNonNull(params.get(ucxBackend), ucxBackend);
            ucx.put(ENGINE_CONFIG, withMutex(ucx.get(ENGINE_CONFIG)));
        }
        Map<String, Map<String, String>> frozen = new LinkedHashMap<>();
        params.forEach((k, v) -> frozen.put(k, Map.copyOf(v)));
        return new NixlSettings(List.copyOf(backends), Map.copyOf(frozen), progress, resolved, delay, telemetry,
                history, idle, hugePages);
    }

    /** {@code engineConfig} (UCX's KEY=VALUE,...) with the worker lock a mutex, unless it sets that lock itself. */
    private static String withMutex(@Nullable String engineConfig) {
        if (engineConfig == null || engineConfig.isBlank()) {
            return MT_MUTEX + "=y";
        }
        for (String entry : engineConfig.split(",", -1)) {
            int eq = entry.indexOf('=');
            if (eq > 0 && entry.substring(0, eq).trim().equalsIgnoreCase(MT_MUTEX)) {
                return engineConfig;
            }
        }
        return engineConfig + "," + MT_MUTEX + "=y";
    }

    private static @Nullable String matchBackend(List<String> backends, String lower) {
        for (String b : backends) {
            if (b.toLowerCase(Locale.ROOT).equals(lower)) {
                return b;
            }
        }
        return null;
    }

    private static boolean bool(Map<String, String> options, String key, boolean defaultValue) {
        String v = options.get(key);
        if (v == null) {
            return defaultValue;
        }
        return switch (v.trim().toLowerCase(Locale.ROOT)) {
            case "true", "yes", "1", "on" -> true;
            case "false", "no", "0", "off" -> false;
            default -> throw new IllegalArgumentException(key + " must be true or false: '" + v + "'");
        };
    }

    private static long number(Map<String, String> options, String key, long defaultValue, long min, long max) {
        String v = options.get(key);
        if (v == null) {
            return defaultValue;
        }
        long n;
        try {
            n = Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be a number: '" + v + "'", e);
        }
        if (n < min || n > max) {
            throw new IllegalArgumentException(key + " must be in [" + min + ", " + max + "]: " + n);
        }
        return n;
    }
}
