package io.blockxfer.loopback.internal;

import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The loopback engines alive in this JVM, by endpoint id: how metadata reaches a peer.
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
final class LoopbackDirectory {

    private static final ConcurrentHashMap<Long, LoopbackEngine> ENGINES = new ConcurrentHashMap<>();

    private LoopbackDirectory() {
    }

    static void register(LoopbackEngine engine) {
        ENGINES.put(engine.endpointId(), engine);
    }

    static void unregister(LoopbackEngine engine) {
        ENGINES.remove(engine.endpointId(), engine);
    }

    static @Nullable LoopbackEngine find(long endpointId) {
        return ENGINES.get(endpointId);
    }
}
