package io.blockxfer.nixl.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;

/**
 * For measuring the binding's FFM downcall overhead (the JMH module uses it): one agent with a
 * finished local-to-local transfer request, so that {@link #statusOfFinishedRequest()} is a real
 * {@code nixl_capi_get_xfer_status} that returns at once, {@link #repost()} one
 * {@code post_xfer_req} of that request (a 4 KiB copy) to completion, and {@link #isStub()} the
 * cheapest downcall there is ({@code nixl_capi_is_stub}).
 *
 * <p><b>Thread safety:</b> not thread-safe: one thread at a time (the request is touched by each
 * call). Close it to free the agent.
 */
public final class NixlDowncallProbe implements AutoCloseable {

    private final NixlAgent agent;
    private final Arena memory = Arena.ofShared();
    private final MemorySegment registration;
    private final long local;
    private final long self;
    private final long request;
    private boolean closed;

    private NixlDowncallProbe() {
        agent = NixlAgent.create("blockxfer-downcall-probe-" + ProcessHandle.current().pid() + "-" + System.nanoTime(),
                NixlSettings.from(Map.of(io.blockxfer.nixl.NixlOptions.TELEMETRY, "false")));
        MemorySegment region = memory.allocate(8192, 4096);
        registration = agent.register(region.address(), region.byteSize());
        local = agent.prepare("", region.address(), 4096, 2, 0);
        self = agent.prepare(agent.name(), region.address(), 4096, 2, 0);
        try (Arena call = Arena.ofConfined()) {
            MemorySegment out = call.allocate(ADDRESS);
            NixlStatus.check("nixl_capi_make_xfer_req", NixlNative.makeXferReq(agent.handle(), NixlNative.OP_WRITE,
                    local, call.allocateFrom(JAVA_INT, 0), 1, self, call.allocateFrom(JAVA_INT, 1), 1, out,
                    MemorySegment.NULL));
            request = out.get(ADDRESS, 0).address();
        }
        int status = NixlNative.postXferReq(agent.handle(), request, MemorySegment.NULL);
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (status == NixlStatus.IN_PROG && System.nanoTime() < deadline) {
            status = NixlNative.getXferStatus(agent.handle(), request);
        }
        NixlStatus.check("local-to-local transfer of the downcall probe", status);
    }

    /**
     * Opens a probe.
     *
     * @throws NixlLoadException if NIXL cannot load
     * @throws NixlException if NIXL refuses
     */
    public static NixlDowncallProbe open() {
        return new NixlDowncallProbe();
    }

    /** {@code nixl_capi_is_stub()}: a downcall that does nothing. */
    public boolean isStub() {
        return NixlNative.isStub();
    }

    /** {@code nixl_capi_get_xfer_status} on a finished request: {@link NixlStatus#SUCCESS}. */
    public int statusOfFinishedRequest() {
        return NixlNative.getXferStatus(agent.handle(), request);
    }

    /**
     * Reposts the finished 4 KiB local-to-local request ({@code nixl_capi_post_xfer_req}, which
     * NIXL allows once a request is done) and checks its status until it is terminal again.
     *
     * @return the final status, {@link NixlStatus#SUCCESS}
     */
    public int repost() {
        int status = NixlNative.postXferReq(agent.handle(), request, MemorySegment.NULL);
        while (status == NixlStatus.IN_PROG) {
            status = NixlNative.getXferStatus(agent.handle(), request);
        }
        return status;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (NixlNative.releaseXferReq(agent.handle(), request) == NixlStatus.SUCCESS) {
            NixlNative.destroyXferReq(request);
        }
        agent.releasePrepared(self);
        agent.releasePrepared(local);
        agent.deregister(registration);
        agent.destroy();
        memory.close();
    }
}
