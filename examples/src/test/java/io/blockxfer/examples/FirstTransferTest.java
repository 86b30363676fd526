package io.blockxfer.examples;

import static io.blockxfer.examples.Loopback.assertFilled;

import io.blockxfer.transport.DataTransport;
import org.junit.jupiter.api.Test;

/** The README's transfer, run against a second loopback transport in this JVM. */
class FirstTransferTest {

    @Test
    void theReadmesWritesLandInThePeersBlocksTenToTwelveAndNowhereElse() throws Exception {
        try (DataTransport decode = Loopback.open("decode-3")) {
            decode.region().segment().fill((byte) 0x5A);

            // the example's own region is freshly allocated, so its blocks 4 to 7 hold zeros
            FirstTransfer.transfer(Loopback.BLOCKS, Loopback.BLOCK_BYTES, decode.localDescriptor().encode());

            for (int block = 10; block <= 12; block++) {
                assertFilled(decode, block, 0); // written, and reported ended before the waiting poll returned
            }
            for (int block = 0; block < Loopback.BLOCKS; block++) {
                if (block < 10 || block > 13) {
                    assertFilled(decode, block, 0x5A);
                }
            }
            // block 13 is written by the asynchronous write, which the example's close may end first
        }
    }
}
