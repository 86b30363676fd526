package io.blockxfer.examples;

import static io.blockxfer.examples.Loopback.assertFilled;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.loopback.LoopbackFaults;
import io.blockxfer.transport.DataTransport;
import java.util.List;
import org.junit.jupiter.api.Test;

/** docs/getting-started.md, run on loopback: whole, and step by step with the bytes each step moved. */
class GettingStartedTest {

    @Test
    void theWholePageRunsAndTheTargetLearnsItsBlockLandedWithTheBytes() throws Exception {
        assertEquals(List.of("prefill-0 wrote req-42, block 7 starts with 44"), GettingStarted.run());
    }

    @Test
    void eachStepMovesTheBytesItSays() throws Exception {
        try (DataTransport prefill = GettingStarted.open("prefill-0");
                DataTransport decode = GettingStarted.open("decode-0")) {
            GettingStarted.connect(prefill, decode);

            GettingStarted.write(prefill);
            assertFilled(decode, 5, 42);

            GettingStarted.readBackAndCompare(prefill);
            assertFilled(prefill, 9, 42);

            GettingStarted.writeWithAFuture(prefill);
            assertFilled(decode, 6, 43);

            assertEquals(List.of("prefill-0 wrote req-42, block 7 starts with 44"),
                    GettingStarted.notifyTheTarget(prefill, decode));
            assertFilled(decode, 7, 44);
        }
    }

    @Test
    void aWriteThatFailsIsNotTakenForDone() throws Exception {
        try (DataTransport prefill = GettingStarted.open("prefill-0");
                DataTransport decode = GettingStarted.open("decode-0")) {
            GettingStarted.connect(prefill, decode);
            prefill.feature(LoopbackFaults.class).orElseThrow().failNextSubmits(1);

            IllegalStateException e = assertThrows(IllegalStateException.class, () -> GettingStarted.write(prefill));
            assertTrue(e.getMessage().contains("did not end done"), e.getMessage());
        }
    }

    @Test
    void aBlockThatDiffersIsReportedWithItsFirstByte() throws Exception {
        try (DataTransport prefill = GettingStarted.open("prefill-0");
                DataTransport decode = GettingStarted.open("decode-0")) {
            GettingStarted.connect(prefill, decode);
            GettingStarted.write(prefill);
            decode.region().block(5).set(java.lang.foreign.ValueLayout.JAVA_BYTE, 100, (byte) 7);

            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> GettingStarted.readBackAndCompare(prefill));
            assertEquals("block 9 differs from block 2 at byte 100", e.getMessage());
        }
    }
}
