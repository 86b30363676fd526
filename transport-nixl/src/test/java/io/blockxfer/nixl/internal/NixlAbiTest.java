package io.blockxfer.nixl.internal;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which NIXL releases are accepted, and the cause given for each one that is not. */
class NixlAbiTest {

    private static void accepted(NixlAbi symbols, String wheel) {
        assertDoesNotThrow(() -> NixlAbi.check(symbols, Optional.of(wheel), "lib", false), wheel);
    }

    private static String refused(NixlAbi symbols, String wheel, boolean allowUncertified) {
        return assertThrows(NixlLoadException.class,
                () -> NixlAbi.check(symbols, Optional.of(wheel), "lib", allowUncertified), wheel).getMessage();
    }

    @Test
    void everyCertifiedReleaseIsAcceptedWithTheAbiItsSymbolsShow() {
        for (NixlVersion v : NixlAbi.CERTIFIED) {
            NixlAbi abi = NixlAbi.of(v).orElseThrow();
            accepted(abi, "nixl-cu12 " + v);
            accepted(abi, "nixl-cu13 " + v);
        }
        assertEquals(NixlAbi.V1_0, NixlAbi.of(NixlVersion.parse("1.4.1")).orElseThrow());
        assertEquals(NixlAbi.V1_5, NixlAbi.of(NixlVersion.parse("1.5.0")).orElseThrow());
        assertTrue(NixlAbi.V1_5.reportsNotFound() && !NixlAbi.V1_0.reportsNotFound());
        assertTrue(NixlAbi.V1_0.leaksDlistHandle() && !NixlAbi.V1_5.leaksDlistHandle());
        assertEquals("1.0.0 to 1.5.1", NixlAbi.certifiedRange());
    }

    @Test
    void releasesOutsideTheRangeAreRefusedWithTheRange() {
        for (String old : new String[] {"nixl-cu12 0.10.1", "nixl-cu12 0.9.0", "nixl-cu12 2.0.0", "nixl-cu12 1.6.0"}) {
            String cause = refused(NixlAbi.V1_5, old, true);
            assertTrue(cause.contains("outside the certified range 1.0.0 to 1.5.1") && cause.contains(old), cause);
        }
    }

    @Test
    void anUncertifiedPatchOfAKnownAbiNeedsTheEscapeHatch() {
        String cause = refused(NixlAbi.V1_5, "nixl-cu12 1.5.7", false);
        assertTrue(cause.contains("not certified") && cause.contains(NixlAbi.ALLOW_UNCERTIFIED), cause);
        assertDoesNotThrow(() -> NixlAbi.check(NixlAbi.V1_5, Optional.of("nixl-cu12 1.5.7"), "lib", true));
    }

    @Test
    void wheelMetadataThatContradictsTheSymbolsIsRefused() {
        String cause = refused(NixlAbi.V1_0, "nixl-cu12 1.5.1", true);
        assertTrue(cause.contains("disagree"), cause);
        assertTrue(refused(NixlAbi.V1_5, "nixl-cu12 1.4.1", true).contains("disagree"));
        assertTrue(refused(NixlAbi.V1_5, "nixl-cu12 1.5.1rc1", true).contains("not a release number"));
    }

    @Test
    void withoutWheelMetadataTheSymbolsDecide() {
        assertDoesNotThrow(() -> NixlAbi.check(NixlAbi.V1_0, Optional.empty(), "lib", false));
        assertFalse(NixlAbi.isCertified(NixlVersion.parse("1.5.2")));
        assertTrue(NixlVersion.parse("1.10.0").compareTo(NixlVersion.parse("1.9.9")) > 0);
        assertThrows(IllegalArgumentException.class, () -> NixlVersion.parse("1.5"));
    }
}
