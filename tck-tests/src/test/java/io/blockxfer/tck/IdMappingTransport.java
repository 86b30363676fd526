package io.blockxfer.tck;

import io.blockxfer.transport.CancelMode;
import io.blockxfer.transport.CompletionHandler;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PollResult;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A forwarding transport that hands out ids of its own choosing ({@link #expose}) and translates
 * them in polls and cancels; the kit's self-tests use it for backends whose ids are wrong.
 */
abstract class IdMappingTransport extends ForwardingTransport {

    private final Map<Long, Long> toDelegate = new ConcurrentHashMap<>();
    private final Map<Long, Long> toExposed = new ConcurrentHashMap<>();

    IdMappingTransport(DataTransport delegate) {
        super(delegate);
    }

    /** The id to hand out for the backend's id {@code delegateId} of a transfer to {@code peer}. */
    abstract long expose(String peer, long delegateId);

    private long map(String peer, long d) {
        if (d < 0) {
            return d;
        }
        long e = expose(peer, d);
        toDelegate.put(e, d);
        toExposed.put(d, e);
        return e;
    }

    private long exposed(long d) {
        return toExposed.getOrDefault(d, d);
    }

    @Override
    public long writeBlocks(String peerId, int[] l, int[] r) {
        return map(peerId, delegate.writeBlocks(peerId, l, r));
    }

    @Override
    public long readBlocks(String peerId, int[] l, int[] r) {
        return map(peerId, delegate.readBlocks(peerId, l, r));
    }

    private PollResult translate(PollResult r) {
        long[] done = new long[r.doneCount()];
        long[] failed = new long[r.failedCount()];
        for (int i = 0; i < done.length; i++) {
            done[i] = exposed(r.doneId(i));
        }
        for (int i = 0; i < failed.length; i++) {
            failed[i] = exposed(r.failedId(i));
        }
        return PollResult.of(done, failed);
    }

    @Override
    public PollResult poll(String peerId) {
        return translate(delegate.poll(peerId));
    }

    @Override
    public int poll(String peerId, CompletionHandler h) {
        Objects.requireNonNull(h, "handler");
        return delegate.poll(peerId, (id, ok) -> h.onTerminal(exposed(id), ok));
    }

    @Override
    public PollResult pollAll() {
        return translate(delegate.pollAll());
    }

    @Override
    public int pollAll(CompletionHandler h) {
        Objects.requireNonNull(h, "handler");
        return delegate.pollAll((id, ok) -> h.onTerminal(exposed(id), ok));
    }

    @Override
    public PollResult poll(String peerId, long timeout, TimeUnit unit) throws InterruptedException {
        return translate(delegate.poll(peerId, timeout, unit));
    }

    @Override
    public int poll(String peerId, CompletionHandler h, long timeout, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(h, "handler");
        return delegate.poll(peerId, (id, ok) -> h.onTerminal(exposed(id), ok), timeout, unit);
    }

    @Override
    public PollResult pollAll(long timeout, TimeUnit unit) throws InterruptedException {
        return translate(delegate.pollAll(timeout, unit));
    }

    @Override
    public int pollAll(CompletionHandler h, long timeout, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(h, "handler");
        return delegate.pollAll((id, ok) -> h.onTerminal(exposed(id), ok), timeout, unit);
    }

    @Override
    public long[] cancel(long[] ids, CancelMode mode) {
        Objects.requireNonNull(ids, "ids");
        long[] d = Arrays.stream(ids).map(e -> toDelegate.getOrDefault(e, Long.MIN_VALUE)).toArray();
        return Arrays.stream(delegate.cancel(d, mode)).map(this::exposed).toArray();
    }
}
