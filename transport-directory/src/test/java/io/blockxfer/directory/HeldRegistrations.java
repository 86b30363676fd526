package io.blockxfer.directory;

import io.blockxfer.transport.DataTransport;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * A transport whose registrations a test holds, as a slow backend's would be: a proxy of a real
 * transport whose {@code addPeerAsync} of a peer that {@code hold} accepts completes only once the
 * test's {@code release} has completed too (then on the thread that completed the later of the
 * two). Every other call goes to the real transport.
 *
 * <p><b>Thread safety:</b> as thread-safe as the transport it wraps and the arguments it is given.
 */
final class HeldRegistrations {

    private HeldRegistrations() {
    }

    /**
     * {@code real}, with each registration of a peer id that {@code hold} accepts (asked once per
     * {@code addPeerAsync}) held until {@code release}; {@code onHeld} runs as each is held.
     */
    @SuppressWarnings("unchecked")
    static DataTransport holding(DataTransport real, Predicate<String> hold, Runnable onHeld,
            CompletableFuture<Void> release) {
        return (DataTransport) Proxy.newProxyInstance(DataTransport.class.getClassLoader(),
                new Class<?>[] {DataTransport.class}, (proxy, method, args) -> {
                    Object result;
                    try {
                        result = method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                    if (method.getName().equals("addPeerAsync") && hold.test((String) args[0])) {
                        onHeld.run();
                        return ((CompletableFuture<Void>) result).thenCombine(release, (x, y) -> (Void) null);
                    }
                    return result;
                });
    }
}
