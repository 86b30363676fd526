package io.blockxfer.ucx.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.ucx.UcxTestSupport;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpEndpointParams;
import org.openucx.jucx.ucp.UcpParams;
import org.openucx.jucx.ucp.UcpWorker;
import org.openucx.jucx.ucp.UcpWorkerParams;

/**
 * The listener's own bookkeeping, on two raw workers that one thread progresses: connection
 * requests past the limit are rejected, and an accepted endpoint whose initiator left is closed
 * and forgotten.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class PeerListenerTest {

    private static void progressUntil(UcpWorker a, UcpWorker b, PeerListener l, BooleanSupplier done, String what)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!done.getAsBoolean()) {
            a.progress();
            b.progress();
            l.afterProgress();
            assertTrue(System.nanoTime() < deadline, what);
        }
    }

    @Test
    void requestsPastTheLimitAreRejectedAndAnEndpointWhoseInitiatorLeftIsForgotten() throws Exception {
        UcxTestSupport.requireUcx();
        UcxLibrary.ensureLoaded();
        UcpParams params = new UcpParams().requestRmaFeature().requestWakeupFeature();
        params.setConfig("TLS", "tcp,self");
        params.setConfig("NET_DEVICES", "lo");
        try (UcpContext context = new UcpContext(params);
                UcpWorker target = context.newWorker(new UcpWorkerParams());
                UcpWorker initiator = context.newWorker(new UcpWorkerParams())) {
            ByteBuffer address = target.getAddress();
            byte[] own = new byte[address.remaining()];
            address.duplicate().get(own);
            PeerListener l = PeerListener.open("limit", target, ListenSetting.AUTO, UcpWorkerAddress.parse(own), 1);
            InetSocketAddress bound = l.address();
            assertNotNull(bound, "a worker with tcp on lo listens");
            InetSocketAddress at = new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}),
                    bound.getPort());
            UcpEndpoint first = initiator.newEndpoint(new UcpEndpointParams().setSocketAddress(at)
                    .setPeerErrorHandlingMode().setErrorHandler((ep, status, message) -> { }));
            progressUntil(target, initiator, l, () -> l.acceptedTotal() == 1, "the first request was not accepted");
            UcpEndpoint second = initiator.newEndpoint(new UcpEndpointParams().setSocketAddress(at)
                    .setPeerErrorHandlingMode().setErrorHandler((ep, status, message) -> { }));
            progressUntil(target, initiator, l, () -> l.rejected() == 1, "the request past the limit was not rejected");
            assertEquals(1, l.acceptedNow());
            assertEquals(1, l.acceptedTotal());

            first.closeNonBlockingForce();
            progressUntil(target, initiator, l, () -> l.acceptedNow() == 0,
                    "the endpoint whose initiator left is still open");
            second.closeNonBlockingForce();
            l.close();
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
            while (System.nanoTime() < end) {
                target.progress();
                initiator.progress();
            }
        }
    }
}
