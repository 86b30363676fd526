package io.blockxfer.ucx;

import io.blockxfer.transport.spi.Availability;

/**
 * Prints this JVM's UCX availability for {@link UcxAvailabilityTest}: availability is probed once
 * per process, so each setting gets a fresh JVM.
 *
 * <p><b>Thread safety:</b> a program.
 */
public final class AvailabilityProbe {

    private AvailabilityProbe() {
    }

    /** Prints {@code AVAILABLE}, {@code CAUSE} and {@code ERROR} lines. */
    public static void main(String[] args) {
        UcxProvider provider = new UcxProvider();
        Availability a = provider.availability();
        System.out.println("AVAILABLE " + a.isAvailable());
        System.out.println("CAUSE " + a.cause().replace('\n', ' '));
        System.out.println("ERROR " + a.error().map(e -> e.getClass().getName() + ": " + e.getMessage())
                .orElse("none").replace('\n', ' '));
        System.out.println("VERSION " + provider.nativeVersion());
    }
}
