package io.blockxfer.transport.testing;

import io.blockxfer.transport.spi.Availability;
import java.util.concurrent.atomic.AtomicInteger;

/** The highest-priority provider, unavailable with a cause; counts how often it is probed. */
public class UnavailableProvider extends GoodProvider {
    /** Calls of {@link #availability()}, by any instance (the probe that would load a library). */
    public static final AtomicInteger PROBES = new AtomicInteger();

    @Override public String name() { return "unavailable"; }
    @Override public int priority() { return 9; }
    @Override public Availability availability() {
        PROBES.incrementAndGet();
        return Availability.unavailable("libfake.so.1: cannot open shared object file",
                new UnsatisfiedLinkError("libfake.so.1"));
    }
}
