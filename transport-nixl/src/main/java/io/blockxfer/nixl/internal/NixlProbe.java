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
        static final String VERSION = describeVersion(AVAILABILITY.isAvailable());
    }

    /** What was found and what is certified, e.g. {@code "nixl-cu12 1.4.1 (certified: 1.0.0 to 1.5.1)"}. */
    private static String describeVersion(boolean available) {
        String certified = "certified: " + NixlAbi.certifiedRange();
        if (available) {
            return NixlNative.version() + " (" + certified + ")";
        }
        try {
            return NixlLibraryLocator.fromSystem().locate().wheelVersion()
                    .map(found -> found + " (refused; " + certified + ")")
                    .orElse("none usable (" + certified + ")");
        } catch (RuntimeException e) {
            return "none usable (" + certified + ")";
        }
    }

    /** The cached outcome. */
    public static Availability availability() {
        return Holder.AVAILABILITY;
    }

    /**
     * The NIXL release found and the certified range: {@code "nixl-cu12 1.5.1 (certified: 1.0.0 to
     * 1.5.1)"}, {@code "nixl-cu12 0.10.1 (refused; certified: ...)"}, or {@code "none usable
     * (certified: ...)"}.
     */
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
