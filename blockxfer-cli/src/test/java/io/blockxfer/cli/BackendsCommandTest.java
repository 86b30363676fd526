package io.blockxfer.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BackendsCommandTest {

    @Test
    void listsLoopbackAsAvailable() {
        Cli.Result r = Cli.run("backends");
        assertEquals(0, r.exitCode(), r::toString);
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("loopback") && l.contains("yes")
                && l.contains("FAULT_INJECTION")), r::toString);
        assertTrue(r.out().contains("--backend auto selects: "), r::toString);
    }

    @Test
    void jsonIsAnArrayOfProvidersWithNames() {
        Cli.Result r = Cli.run("backends", "--json");
        assertEquals(0, r.exitCode(), r::toString);
        List<Map<String, Object>> providers = MiniJson.parseObjects(r.out());
        Map<String, Object> loopback = providers.stream().filter(p -> "loopback".equals(p.get("name"))).findFirst()
                .orElseThrow(() -> new AssertionError("no loopback in " + r.out()));
        assertEquals(true, loopback.get("available"));
        assertEquals(0.0, loopback.get("priority"));
        assertTrue(((List<?>) loopback.get("capabilities")).contains("READ"), r::toString);
        for (Map<String, Object> p : providers) {
            assertTrue(p.get("name") instanceof String, r::toString);
            assertTrue(p.containsKey("cause") && p.containsKey("nativeVersion"), r::toString);
        }
    }
}
