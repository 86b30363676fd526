package io.blockxfer.ucx.internal;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Exactly UCX 1.18.x is certified; everything else is refused with a cause that says what to do. */
class UcxLibraryVersionTest {

    @Test
    void onlyTheCertifiedReleaseLinePasses() {
        assertNull(UcxLibrary.versionProblem(new int[] {1, 18, 0}, "x"));
        assertNull(UcxLibrary.versionProblem(new int[] {1, 18, 1}, "x"));
        assertNull(UcxLibrary.versionProblem(new int[] {1, 18, 9}, "x"));
        for (int[] v : new int[][] {{1, 17, 0}, {1, 13, 1}, {1, 19, 0}, {1, 22, 0}, {2, 18, 0}, {0, 18, 0}}) {
            String why = UcxLibrary.versionProblem(v, "/lib");
            assertNotNull(why, v[0] + "." + v[1] + "." + v[2] + " passed");
            assertTrue(why.contains("UCX " + v[0] + "." + v[1] + "." + v[2] + " at /lib is not certified"), why);
            assertTrue(why.contains("1.18.x") && why.contains("scripts/install-natives ucx")
                    && why.contains("blockxfer.ucx.allowUncertified=true"), why);
        }
        assertTrue(UcxLibrary.versionProblem(new int[] {1, 13, 1}, "x").contains("older UCX lacks"));
        assertTrue(UcxLibrary.versionProblem(new int[] {1, 22, 0}, "x").contains("newer UCX crashes"));
    }
}
