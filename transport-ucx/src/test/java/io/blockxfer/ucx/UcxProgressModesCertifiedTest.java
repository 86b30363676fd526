package io.blockxfer.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.blockxfer.tck.ProgressModeCoverage;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Every progress mode UCX declares ({@link UcxTck#DECLARATIONS}) has a conformance suite. */
class UcxProgressModesCertifiedTest {

    @Test
    void everyDeclaredModeHasASuite() {
        assertEquals(Set.of(), ProgressModeCoverage.uncertified(List.of(new UcxConformanceTest(),
                new UcxBackendThreadConformanceTest(), new UcxCallerMemoryConformanceTest(),
                new UcxTwoProcessConformanceTest(), new UcxTwoProcessBackendThreadConformanceTest(),
                new UcxTwoProcessCallerMemoryConformanceTest())));
    }
}
