package io.blockxfer.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@code blockxfer.tck.rules} names rules by id and sets of them by name. */
class TckEnvironmentRulesTest {

    @AfterEach
    void clear() {
        System.clearProperty("blockxfer.tck.rules");
    }

    @Test
    void noSettingSelectsEveryRule() {
        TckEnvironment env = TckEnvironment.fromSystem();
        assertTrue(Arrays.stream(ConformanceRules.values()).allMatch(r -> env.selects(r.name())));
    }

    @Test
    void idsAreReadWhateverTheirCase() {
        System.setProperty("blockxfer.tck.rules", "f2, x4");
        TckEnvironment env = TckEnvironment.fromSystem();
        assertTrue(env.selects("F2"));
        assertTrue(env.selects("X4"));
        assertFalse(env.selects("W1"));
    }

    @Test
    void aSetByNameSelectsExactlyItsRules() {
        System.setProperty("blockxfer.tck.rules", "@nativeLibrary,C1");
        TckEnvironment env = TckEnvironment.fromSystem();
        for (ConformanceRules rule : ConformanceRules.values()) {
            assertEquals(ConformanceRules.nativeLibrary().contains(rule) || rule == ConformanceRules.C1,
                    env.selects(rule.name()), rule.name());
        }
        System.setProperty("blockxfer.tck.rules", "@acrossProcesses");
        TckEnvironment across = TckEnvironment.fromSystem();
        System.setProperty("blockxfer.tck.rules", "@regionMemory");
        TckEnvironment memory = TckEnvironment.fromSystem();
        for (ConformanceRules rule : ConformanceRules.values()) {
            assertEquals(ConformanceRules.acrossProcesses().contains(rule), across.selects(rule.name()), rule.name());
            assertEquals(ConformanceRules.regionMemory().contains(rule), memory.selects(rule.name()), rule.name());
        }
    }

    @Test
    void anUnknownSetIsRefusedByName() {
        System.setProperty("blockxfer.tck.rules", "@everything");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, TckEnvironment::fromSystem);
        assertTrue(e.getMessage().contains("@everything"), e.getMessage());
    }
}
