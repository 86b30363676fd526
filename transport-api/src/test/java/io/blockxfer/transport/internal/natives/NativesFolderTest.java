package io.blockxfer.transport.internal.natives;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where the natives folder is looked for, in which order, and what the trace says about misses. */
class NativesFolderTest {

    @TempDir
    Path tmp;

    private final List<String> trace = new ArrayList<>();

    private Optional<NativesFolder> find(Map<String, String> properties, Map<String, String> environment, Path start) {
        return NativesFolder.find(properties::get, environment::get, start, trace);
    }

    @Test
    void thePropertyWinsOverTheVariableAndTheWalk() throws Exception {
        Path byProperty = Files.createDirectories(tmp.resolve("p"));
        Path byVariable = Files.createDirectories(tmp.resolve("v"));
        Files.createDirectories(tmp.resolve("natives"));
        NativesFolder found = find(Map.of(NativesFolder.PROPERTY, byProperty.toString()),
                Map.of(NativesFolder.ENV, byVariable.toString()), tmp).orElseThrow();
        assertEquals(byProperty, found.dir());
        assertTrue(found.origin().contains(NativesFolder.PROPERTY), found.origin());
        assertEquals(List.of(), trace, "a hit leaves no miss in the trace");
        assertEquals(byVariable, find(Map.of(), Map.of(NativesFolder.ENV, byVariable.toString()), tmp)
                .orElseThrow().dir());
    }

    @Test
    void aNativesFolderIsFoundWalkingUpFromTheStart() throws Exception {
        Path natives = Files.createDirectories(tmp.resolve("repo/natives"));
        Path deep = Files.createDirectories(tmp.resolve("repo/module/sub"));
        NativesFolder found = find(Map.of(), Map.of(), deep.resolve("..").resolve("sub")).orElseThrow();
        assertEquals(natives, found.dir());
        assertEquals(natives.resolve("ucx/libucx/lib"), found.resolve("ucx/libucx/lib"));
    }

    @Test
    void aNamedFolderThatDoesNotExistIsSkippedAndTraced() throws Exception {
        Path natives = Files.createDirectories(tmp.resolve("natives"));
        Path gone = tmp.resolve("gone");
        NativesFolder found = find(Map.of(NativesFolder.PROPERTY, gone.toString()),
                Map.of(NativesFolder.ENV, "bad\u0000path"), tmp).orElseThrow();
        assertEquals(natives, found.dir());
        assertEquals(2, trace.size(), trace.toString());
        assertTrue(trace.get(0).contains(NativesFolder.PROPERTY) && trace.get(0).contains(gone.toString())
                && trace.get(0).contains("does not exist"), trace.get(0));
        assertTrue(trace.get(1).contains(NativesFolder.ENV) && trace.get(1).contains("no valid path"), trace.get(1));
    }

    @Test
    void withoutAnyFolderTheTraceSaysWhereItLooked() throws Exception {
        Path start = Files.createDirectories(tmp.resolve("empty/start"));
        for (Path p = tmp.getParent(); p != null; p = p.getParent()) {
            Assumptions.assumeFalse(Files.isDirectory(p.resolve("natives")), "the temporary folder lies below " + p
                    + "/natives");
        }
        assertEquals(Optional.empty(), find(Map.of(NativesFolder.PROPERTY, " "), Map.of(), start));
        assertEquals(1, trace.size(), trace.toString());
        assertTrue(trace.get(0).startsWith("no natives folder") && trace.get(0).contains(start.toString()),
                trace.get(0));
    }
}
