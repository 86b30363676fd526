package io.blockxfer.transport.testing;

import io.blockxfer.transport.spi.Availability;

/** The highest-priority provider, unavailable with a cause. */
public class UnavailableProvider extends GoodProvider {
    @Override public String name() { return "unavailable"; }
    @Override public int priority() { return 9; }
    @Override public Availability availability() {
        return Availability.unavailable("libfake.so.1: cannot open shared object file",
                new UnsatisfiedLinkError("libfake.so.1"));
    }
}
