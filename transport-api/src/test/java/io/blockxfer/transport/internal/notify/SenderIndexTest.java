package io.blockxfer.transport.internal.notify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** A sender is named as its current registration names it: the remembered last answer never outlives a change. */
class SenderIndexTest {

    @Test
    void theLastAnswerFollowsEveryPublicationAndRetirement() {
        SenderIndex index = new SenderIndex();
        assertNull(index.peerOf(7));
        index.published(7, "decode-1");
        assertEquals("decode-1", index.peerOf(7));
        assertEquals("decode-1", index.peerOf(7), "asked again: the remembered answer");
        index.retired(7, "decode-1");
        assertNull(index.peerOf(7), "retired: no name, although it was the last answer");
        index.published(7, "decode-2");
        assertEquals("decode-2", index.peerOf(7));
        index.published(8, "prefill-1");
        assertEquals("prefill-1", index.peerOf(8));
        assertEquals("decode-2", index.peerOf(7));
        index.published(7, "decode-3");
        assertEquals("decode-3", index.peerOf(7), "a registration replaced under the same identity");
        index.retired(7, "decode-2");
        assertEquals("decode-3", index.peerOf(7), "retiring an older registration leaves the newer one");
    }
}
