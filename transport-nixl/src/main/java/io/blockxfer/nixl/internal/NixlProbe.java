package io.blockxfer.nixl.internal;

import io.blockxfer.transport.spi.Availability;
import java.util.List;
import java.util.Map;

/**
 * The availability probe of the {@code nixl} backend, run once per JVM: loads the library for real
 * and creates and destroys an agent with the UCX backend. The outcome names the exact cause of a
 * failure (the loader's {@code dlerror()} text, a missing symbol, NIXL's status, where the library
 * was looked for) and keeps the error.
 *
 * <p><b>Thread safety:</b> thread-safe; the probe runs once (class initialisation).
 */
public final class NixlProbe {

    private NixlProbe() {
    }

    private static final class Holder {
        static final Availability AVAILABILITY = probe();
        static final String VERSION = AVAILABILITY.isAvailable() ? NixlNative.version() : "";
    }

    /** The cached outcome. */
    public static Availability availability() {
        return Holder.AVAILABILITY;
    }

    /** The wheel and version of the loaded library, or {@code ""} when unavailable. */
    public static String version() {
        return Holder.VERSION;
    }

    private static Availability probe() {
        try {
            NixlNative.ensureLoaded();
        } catch (ExceptionInInitializerError e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            return Availability.unavailable("NIXL's C library did not load: " + cause.getMessage(), cause);
        } catch (NoClassDefFoundError | UnsatisfiedLinkError e) {
            return Availability.unavailable("NIXL's C library did not load: " + e, e);
        } catch (RuntimeException e) {
            return Availability.unavailable("NIXL's C library did not load: " + e.getMessage(), e);
        }
        try {
            if (NixlNative.isStub()) {
                return Availability.unavailable(NixlNative.libraryDescription() + " is the nixl-sys stub, not NIXL");
            }
            String name = "blockxfer-probe-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
            NixlSettings settings = NixlSettings.from(Map.of());
            List<String> plugins;
            try (NixlAgent agent = NixlAgent.create(name, settings)) {
                plugins = agent.availablePlugins();
            }
            if (!plugins.contains("UCX")) {
                return Availability.unavailable("NIXL loaded from " + NixlNative.libraryDescription()
                        + " but finds no UCX plugin (plugins: " + plugins + ")");
            }
            return Availability.available();
        } catch (NixlException e) {
            return Availability.unavailable("NIXL loaded from " + NixlNative.libraryDescription()
                    + " but creating an agent with the UCX backend failed: " + e.getMessage()
                    + " (NIXL_PLUGIN_DIR=" + System.getenv("NIXL_PLUGIN_DIR") + " at JVM start)", e);
        } catch (RuntimeException | LinkageError e) {
            return Availability.unavailable("NIXL loaded from " + NixlNative.libraryDescription()
                    + " but the probe failed: " + e, e);
        }
    }
}
