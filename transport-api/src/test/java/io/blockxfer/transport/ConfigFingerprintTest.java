package io.blockxfer.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ConfigFingerprintTest {

    @Test
    void matchesThePythonVectors() {
        assertEquals("e66978b6d0f4f4e6", ConfigFingerprint.of(Map.of("block_size_factor", 4, "dtype", "bfloat16")));
        Map<String, Object> second = new LinkedHashMap<>();
        second.put("b", List.of(1, 2));
        second.put("a", "é");
        second.put("c", null);
        second.put("d", 1.5);
        second.put("e", true);
        assertEquals("{\"a\":\"\\u00e9\",\"b\":[1,2],\"c\":null,\"d\":1.5,\"e\":true}",
                ConfigFingerprint.canonicalJson(second));
        assertEquals("f72134d556c3d662", ConfigFingerprint.of(second));
    }

    @Test
    void noFieldsMeansNoFingerprint() {
        assertEquals("", ConfigFingerprint.of(null));
        assertEquals("", ConfigFingerprint.of(Map.of()));
    }

    @ParameterizedTest(name = "{0} is written as Python writes it: {1}")
    @CsvSource(delimiter = '|', value = {
        "1.5|1.5", "123.0|123.0", "0.1|0.1", "1e16|1e+16", "1e15|1000000000000000.0", "1.5e16|1.5e+16",
        "0.0001|0.0001", "0.00001|1e-05", "-2.5e-7|-2.5e-07", "1.7976931348623157e308|1.7976931348623157e+308",
        "5e-324|5e-324", "-0.0|-0.0", "0.0|0.0", "123456789012345.6|123456789012345.6",
        "1234567890123456.7|1234567890123456.8", "NaN|NaN", "Infinity|Infinity", "-Infinity|-Infinity",
    })
    void floatsAreWrittenLikePythonRepr(double value, String python) {
        assertEquals("{\"x\":" + python + "}", ConfigFingerprint.canonicalJson(Map.of("x", value)));
    }

    @Test
    void keysSortByCodePointAndStringsEscapeLikePython() {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("\uD83D\uDE00", 1); // U+1F600 sorts after U+FFFD by code point, before it by UTF-16 unit
        fields.put("\uFFFD", 2);
        fields.put("a\"b\\c\n\t\u0001\u007f", "x");
        assertEquals("{\"a\\\"b\\\\c\\n\\t\\u0001\\u007f\":\"x\",\"\\ufffd\":2,\"\\ud83d\\ude00\":1}",
                ConfigFingerprint.canonicalJson(fields));
    }

    @Test
    void nestedValuesAndIntegralTypes() {
        Map<String, Object> fields = Map.of("m", Map.of("z", List.of(1L, (short) 2, (byte) 3), "a", new int[] {4}),
                "big", new java.math.BigInteger("123456789012345678901234567890"));
        assertEquals("{\"big\":123456789012345678901234567890,\"m\":{\"a\":[4],\"z\":[1,2,3]}}",
                ConfigFingerprint.canonicalJson(fields));
    }

    @Test
    void valuesWithoutJsonFormAreRejected() {
        var e = assertThrows(IllegalArgumentException.class, () -> ConfigFingerprint.of(Map.of("x", new Object())));
        assertEquals(true, e.getMessage().contains("java.lang.Object"));
        Map<Object, Object> badKey = Map.of(1, 2);
        assertThrows(IllegalArgumentException.class,
                () -> ConfigFingerprint.of(Map.of("m", badKey)));
    }

    @Test
    void matchesCPythonOnHundredsOfFloats() throws Exception {
        var in = getClass().getResourceAsStream("/python-float-vectors.txt");
        int checked = 0;
        for (String line : new String(in.readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII).lines().toList()) {
            if (line.startsWith("#")) {
                continue;
            }
            String[] parts = line.split(" ", -1);
            double d = Double.longBitsToDouble(Long.parseUnsignedLong(parts[0], 16));
            assertEquals("{\"x\":" + parts[1] + "}", ConfigFingerprint.canonicalJson(Map.of("x", d)), parts[0]);
            checked++;
        }
        assertEquals(true, checked > 500);
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("ratio", 0.1);
        fields.put("layers", List.of(1, 2.5, "x"));
        fields.put("name", "k\u00e4se\uD83D\uDE00");
        Map<String, Object> nested = new LinkedHashMap<>();
        nested.put("z", null);
        nested.put("a", false);
        fields.put("nested", nested);
        String expected = new String(getClass().getResourceAsStream("/python-float-vectors.txt").readAllBytes(),
                java.nio.charset.StandardCharsets.US_ASCII).lines().filter(l -> l.startsWith("# fingerprint "))
                .findFirst().orElseThrow().substring("# fingerprint ".length());
        assertEquals(expected, ConfigFingerprint.of(fields));
    }
}
