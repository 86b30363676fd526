package io.blockxfer.ucx.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.ucx.UcxTestSupport;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpEndpointParams;
import org.openucx.jucx.ucp.UcpParams;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;
import org.openucx.jucx.ucp.UcpWorkerParams;

/**
 * Notifications gathered for one endpoint leave as few active messages: every frame gathered
 * before a flush arrives once, whole and in order, in messages of at most
 * {@value AmNotifications#BUNDLE_FRAMES} frames and {@value AmNotifications#BUNDLE_BYTES} bytes; a
 * frame over the bound is refused before anything is sent; a peer whose metadata does not take
 * bundles (an older build) gets one frame a message, at once. Two UCX workers of one process, no
 * transport around them.
 */
class AmNotificationBundlesTest {

    private UcpContext context;
    private UcpWorker senderWorker;
    private UcpWorker receiverWorker;
    private UcpEndpoint endpoint;
    private AmNotifications sender;
    private AmNotifications receiver;
    private final List<byte[]> received = new ArrayList<>();

    @BeforeEach
    void workers() {
        UcxTestSupport.requireUcx();
        UcxLibrary.ensureLoaded();
        context = new UcpContext(new UcpParams().requestAmFeature());
        senderWorker = context.newWorker(new UcpWorkerParams());
        receiverWorker = context.newWorker(new UcpWorkerParams());
        sender = new AmNotifications("sender", senderWorker);
        receiver = new AmNotifications("receiver", receiverWorker);
        receiver.bind((message, peerId, backendName) -> received.add(message));
        endpoint = senderWorker.newEndpoint(new UcpEndpointParams().setUcpAddress(receiverWorker.getAddress()));
    }

    @AfterEach
    void close() {
        if (endpoint != null) {
            UcpRequest closing = endpoint.closeNonBlockingFlush();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!closing.isCompleted() && System.nanoTime() < deadline) {
                progressBoth();
            }
        }
        if (receiverWorker != null) {
            receiverWorker.close();
        }
        if (senderWorker != null) {
            senderWorker.close();
        }
        if (context != null) {
            context.close();
        }
    }

    private void progressBoth() {
        try {
            senderWorker.progress();
            receiverWorker.progress();
        } catch (Exception e) { // JUCX declares Exception, throws UcxException
            throw new IllegalStateException(e);
        }
        receiver.deliverArrived();
    }

    @Test
    void framesGatheredBeforeAFlushArriveOnceInOrderInFewMessages() {
        List<byte[]> sent = new ArrayList<>();
        int expectedMessages = 0;
        int framesInBundle = 0;
        int bytesInBundle = 0;
        for (int i = 0; i < 150; i++) {
            byte[] frame = new byte[i % 5 == 0 ? 1000 : 40];
            Arrays.fill(frame, (byte) i);
            // the rule a bundle follows: a new one when the frame would pass either bound
            if (framesInBundle == 0 || framesInBundle == AmNotifications.BUNDLE_FRAMES
                    || bytesInBundle + 2 + frame.length > AmNotifications.BUNDLE_BYTES) {
                expectedMessages++;
                framesInBundle = 0;
                bytesInBundle = 0;
            }
            framesInBundle++;
            bytesInBundle += 2 + frame.length;
            assertTrue(sender.sendMessage(endpoint, frame, null), "frame " + i + " was refused");
            sent.add(frame);
        }
        assertTrue(sender.messagesSent() < expectedMessages, "every gathered frame waits for the flush but those"
                + " of full bundles: " + sender.messagesSent() + " messages sent before it");
        assertEquals(expectedMessages, sender.messagesSent() + sender.flush(), "bundles flushed");
        assertEquals(expectedMessages, sender.messagesSent());
        assertEquals(150, sender.framesSent());
        assertTrue(expectedMessages < 150 / 4, "150 frames needed " + expectedMessages + " messages");

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (received.size() < sent.size() && System.nanoTime() < deadline) {
            progressBoth();
        }
        for (int i = 0; i < 200; i++) {
            progressBoth(); // nothing more may come
        }
        assertEquals(sent.size(), received.size(), "frames received");
        for (int i = 0; i < sent.size(); i++) {
            assertArrayEquals(sent.get(i), received.get(i), "frame " + i);
        }
        assertEquals(0, sender.flush(), "a flush with nothing gathered sends nothing");
    }

    @Test
    void aPeerThatTakesNoBundlesGetsEachFrameAsAMessageOfItsOwnAtOnce() {
        UcxPeer older = new UcxPeer("older", 4096, 1,
                new UcxMetadata(4096, 4096, new byte[] {1}, new byte[9]).withoutNotificationBundles());
        List<byte[]> sent = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            byte[] frame = new byte[40 + i];
            Arrays.fill(frame, (byte) i);
            older.messagesInFlight.incrementAndGet(); // as the transport counts a message before it queues it
            assertTrue(sender.sendMessage(endpoint, frame, older));
            sent.add(frame);
        }
        assertEquals(3, sender.messagesSent(), "sent at once, one message a frame");
        assertEquals(0, sender.flush(), "nothing gathered");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while ((received.size() < sent.size() || older.messagesInFlight.get() > 0) && System.nanoTime() < deadline) {
            progressBoth();
        }
        assertEquals(sent.size(), received.size(), "frames received");
        for (int i = 0; i < sent.size(); i++) {
            assertArrayEquals(sent.get(i), received.get(i), "frame " + i);
        }
        assertEquals(0, older.messagesInFlight.get(), "each message's end counted off its peer");
    }

    @Test
    void aFrameOverTheBoundIsRefusedBeforeAnythingIsSent() {
        assertFalse(sender.sendMessage(endpoint, new byte[2049], null));
        assertEquals(0, sender.flush());
        assertEquals(0, sender.messagesSent());
    }
}
