package io.blockxfer.transport.testing;

import io.blockxfer.transport.spi.Availability;

/** A provider whose availability probe throws. */
public class ThrowingAvailabilityProvider extends GoodProvider {
    @Override public String name() { return "throwing"; }
    @Override public int priority() { return 10; }
    @Override public Availability availability() {
        throw new UnsatisfiedLinkError("probe exploded");
    }
}
