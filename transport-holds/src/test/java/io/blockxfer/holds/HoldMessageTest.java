package io.blockxfer.holds;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.transport.Notification;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The wire format of grants and hold messages: what is written reads back, what is malformed is refused by name. */
class HoldMessageTest {

    @Test
    void everyMessageReadsBackAsWritten() {
        HoldGrant g = new HoldGrant(-7L, 2000, new int[] {3, 4, 5, 9, 1}, "tag".getBytes(StandardCharsets.US_ASCII));
        assertEquals(g, HoldGrant.decode(g.encode()));
        assertEquals(g, HoldMessage.decode(HoldMessage.grant(g).encode()).grant());
        HoldMessage renew = HoldMessage.renew(12, 1L, Long.MIN_VALUE, Long.MAX_VALUE);
        assertEquals(renew, HoldMessage.decode(renew.encode()));
        HoldMessage renewed = HoldMessage.renewed(12, new long[] {1, 2}, new int[] {2000, 0});
        HoldMessage back = HoldMessage.decode(renewed.encode());
        assertEquals(renewed, back);
        assertEquals(2000, back.grantedMillis(0));
        HoldMessage release = HoldMessage.release(true, 5L);
        assertTrue(HoldMessage.decode(release.encode()).complete());
        assertFalse(HoldMessage.decode(HoldMessage.release(false, 5L).encode()).complete());
        HoldMessage ended = HoldMessage.ended(new long[] {1, 2}, new HoldEnd.Reason[] {HoldEnd.Reason.CANCELLED, null});
        HoldMessage endedBack = HoldMessage.decode(ended.encode());
        assertEquals(HoldEnd.Reason.CANCELLED, endedBack.endReason(0));
        assertNull(endedBack.endReason(1), "an unknown hold");
    }

    @Test
    void aGrantOfConsecutiveBlocksIsAFewBytesWhateverItsLength() {
        int[] blocks = IntStream.range(1000, 5096).toArray();
        HoldGrant g = new HoldGrant(1, 10_000, blocks, new byte[0]);
        assertTrue(g.encode().length < 32, "one run: " + g.encode().length + " bytes");
        assertTrue(g.fitsInNotification());
        assertArrayEquals(blocks, HoldGrant.decode(g.encode()).blocks());
        int[] scattered = IntStream.range(0, 600).map(i -> i * 2).toArray();
        assertFalse(new HoldGrant(1, 10_000, scattered, new byte[0]).fitsInNotification(),
                "600 runs do not fit a notification: they go over the owner's control plane");
    }

    @Test
    void theLargestMessageOfEachTypeFitsOneNotification() {
        int n = HoldMessage.maxIds(HoldMessage.Type.RENEW);
        assertTrue(HoldMessage.renew(1, new long[n]).encode().length <= Notification.MAX_PAYLOAD_BYTES);
        int r = HoldMessage.maxIds(HoldMessage.Type.RENEWED);
        assertTrue(HoldMessage.renewed(1, new long[r], new int[r]).encode().length <= Notification.MAX_PAYLOAD_BYTES);
        int e = HoldMessage.maxIds(HoldMessage.Type.ENDED);
        HoldEnd.Reason[] reasons = new HoldEnd.Reason[e];
        Arrays.fill(reasons, HoldEnd.Reason.EXPIRED);
        assertTrue(HoldMessage.ended(new long[e], reasons).encode().length <= Notification.MAX_PAYLOAD_BYTES);
        int l = HoldMessage.maxIds(HoldMessage.Type.RELEASE);
        assertTrue(HoldMessage.release(true, new long[l]).encode().length <= Notification.MAX_PAYLOAD_BYTES);
        assertThrows(IllegalArgumentException.class, () -> HoldMessage.renew(1, new long[n + 1]));
        assertThrows(IllegalArgumentException.class, () -> HoldMessage.renew(1));
    }

    @Test
    void malformedMessagesAreRefusedNamingWhatIsWrong() {
        assertFalse(HoldMessage.isHoldMessage("hello".getBytes(StandardCharsets.US_ASCII)));
        assertMalformed(new byte[] {'B', 'X', 'H', 2, 2}, "prefix");
        assertMalformed(new byte[] {'B', 'X', 'H', 1, 9}, "unknown type");
        byte[] renew = HoldMessage.renew(1, 1L, 2L).encode();
        assertMalformed(Arrays.copyOf(renew, renew.length - 1), "truncated");
        assertMalformed(Arrays.copyOf(renew, renew.length + 1), "after the end");
        byte[] ended = HoldMessage.ended(new long[] {1}, new HoldEnd.Reason[] {HoldEnd.Reason.EXPIRED}).encode();
        ended[ended.length - 1] = 9;
        assertMalformed(ended, "end reason");
        HoldGrant g = new HoldGrant(1, 2000, new int[] {1, 2}, new byte[0]);
        byte[] grant = g.encode();
        // the TTL (bytes 13 to 16, after the prefix, type and id) made 1 ms, under the minimum
        grant[13] = 0;
        grant[14] = 0;
        grant[15] = 0;
        grant[16] = 1;
        assertMalformed(grant, "TTL");
        assertMalformed(new HoldGrant(1, 2000, new int[] {1, 1}, new byte[0]).encode(), "appears twice");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HoldGrant.decode(HoldMessage.renew(1, 1L).encode()));
        assertTrue(e.getMessage().contains("not a grant"), e.getMessage());
    }

    private static void assertMalformed(byte[] payload, String says) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> HoldMessage.decode(payload));
        assertTrue(e.getMessage().contains(says), e.getMessage());
    }

    @Test
    void aGrantKeepsItsTtlAsADurationNeverAnInstant() {
        HoldGrant g = new HoldGrant(1, 1500, new int[] {0}, new byte[0]);
        assertEquals(Duration.ofMillis(1500), HoldGrant.decode(g.encode()).ttl());
    }
}
