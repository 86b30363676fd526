package io.blockxfer.nixl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.blockxfer.tck.ProgressModeCoverage;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Every progress mode NIXL declares ({@link NixlTck#DECLARATIONS}) has a conformance suite. */
class NixlProgressModesCertifiedTest {

    @Test
    void everyDeclaredModeHasASuite() {
        assertEquals(Set.of(), ProgressModeCoverage.uncertified(List.of(new NixlConformanceTest(),
                new NixlBackendThreadConformanceTest(), new NixlCallerMemoryConformanceTest(),
                new NixlTwoProcessConformanceTest(), new NixlTwoProcessCallerMemoryConformanceTest())));
    }
}
