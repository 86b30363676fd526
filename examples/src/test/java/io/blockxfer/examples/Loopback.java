package io.blockxfer.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;

/** What the examples' tests share: loopback transports and checks of a block's bytes. Stateless. */
final class Loopback {

    static final int BLOCKS = 16;
    static final long BLOCK_BYTES = 4096;

    private Loopback() {
    }

    /** A loopback transport of 16 blocks of 4 KiB with the README's config fields. */
    static DataTransport open(String agentName) {
        return Transports.open(TransportConfig.builder(RegionSpec.allocate(BLOCKS, BLOCK_BYTES))
                .agentName(agentName)
                .configFields(Map.of("block_size_factor", 4, "dtype", "bfloat16"))
                .transport("loopback")
                .build());
    }

    /** Asserts that every byte of {@code block} is {@code value}. */
    static void assertFilled(DataTransport transport, int block, int value) {
        MemorySegment bytes = transport.region().block(block);
        for (long i = 0; i < bytes.byteSize(); i++) {
            byte b = bytes.get(ValueLayout.JAVA_BYTE, i);
            if (b != (byte) value) {
                assertEquals((byte) value, b, transport.agentName() + "'s block " + block + " at byte " + i);
            }
        }
    }
}
