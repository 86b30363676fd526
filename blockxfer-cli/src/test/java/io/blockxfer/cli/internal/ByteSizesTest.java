package io.blockxfer.cli.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class ByteSizesTest {

    @Test
    void parsesBinarySuffixes() {
        assertEquals(4096, ByteSizes.parse("4096"));
        assertEquals(64 << 10, ByteSizes.parse("64K"));
        assertEquals(64 << 10, ByteSizes.parse("64KiB"));
        assertEquals(2 << 20, ByteSizes.parse("2m"));
        assertEquals(2 << 20, ByteSizes.parse("2MB"));
        assertEquals(1L << 40, ByteSizes.parse("1T"));
        assertThrows(IllegalArgumentException.class, () -> ByteSizes.parse("0"));
        assertThrows(IllegalArgumentException.class, () -> ByteSizes.parse("1.5M"));
        assertThrows(IllegalArgumentException.class, () -> ByteSizes.parse("9999999999T"));
        assertThrows(IllegalArgumentException.class, () -> ByteSizes.parse("K"));
    }

    @Test
    void formats() {
        assertEquals("64 KiB", ByteSizes.format(64 << 10));
        assertEquals("1.5 MiB", ByteSizes.format(3 << 19));
        assertEquals("100 B", ByteSizes.format(100));
        assertEquals("2M", ByteSizes.compact(2 << 20));
        assertEquals("1000", ByteSizes.compact(1000));
    }
}
