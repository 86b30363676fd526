package io.blockxfer.cli.internal;

import io.blockxfer.tck.TckHarness;
import io.blockxfer.tck.TransportConformanceSuite;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The conformance kit as a concrete class the JUnit Platform launcher can run: its harness is the
 * one {@link TckRunner} installs for the duration of a run, so any provider, including one from a
 * jar outside this repository, can be certified without writing a test class.
 *
 * <p><b>Thread safety:</b> the installed harness is published through a volatile field; one run
 * at a time.
 */
public class CliConformanceSuite extends TransportConformanceSuite {

    private static volatile @Nullable TckHarness current;

    /** For JUnit. */
    public CliConformanceSuite() {
    }

    static void install(TckHarness harness) {
        current = harness;
    }

    static void uninstall() {
        current = null;
    }

    @Override
    protected TckHarness harness() {
        return Objects.requireNonNull(current, "no harness installed: run the kit through 'blockxfer tck'");
    }
}
