package io.blockxfer.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

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
        List<JsonNode> providers = JsonTree.objects(r.out());
        JsonNode loopback = providers.stream().filter(p -> p.path("name").asString().equals("loopback")).findFirst()
                .orElseThrow(() -> new AssertionError("no loopback in " + r.out()));
        assertTrue(loopback.get("available").booleanValue(), r::toString);
        assertEquals(0, loopback.get("priority").intValue());
        assertTrue(loopback.get("capabilities").valueStream().anyMatch(c -> c.stringValue().equals("READ")),
                r::toString);
        for (JsonNode p : providers) {
            assertTrue(p.get("name").isString(), r::toString);
            assertTrue(p.has("cause") && p.has("nativeVersion"), r::toString);
            assertEquals(p.get("available").booleanValue(), p.get("cause").isNull(), r::toString);
        }
    }
}
