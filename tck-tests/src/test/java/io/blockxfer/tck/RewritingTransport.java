package io.blockxfer.tck;

import io.blockxfer.transport.CompletionHandler;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PollResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A forwarding transport that knows the peer of every id it handed out and which ids were
 * reported, and passes the reports of every poll form through {@link #rewrite}; the kit's
 * self-tests override it to lose, delay, duplicate or misreport completions.
 */
class RewritingTransport extends ForwardingTransport {

    /** One report: an id and whether it was done. */
    record Report(long id, boolean done) {
    }

    final Map<Long, String> peerOf = new ConcurrentHashMap<>();
    final Map<Long, Long> submittedAt = new ConcurrentHashMap<>();
    final Set<Long> reported = ConcurrentHashMap.newKeySet();

    RewritingTransport(DataTransport delegate) {
        super(delegate);
    }

    /** What a poll of {@code peer} (null: pollAll) reports, given what the real backend reported. */
    List<Report> rewrite(String peer, List<Report> reports) {
        return reports;
    }

    long submitted(String peer, long id) {
        if (id >= 0) {
            peerOf.put(id, peer);
            submittedAt.put(id, System.nanoTime());
        }
        return id;
    }

    @Override
    public long writeBlocks(String peerId, int[] l, int[] r) {
        return submitted(peerId, delegate.writeBlocks(peerId, l, r));
    }

    @Override
    public long readBlocks(String peerId, int[] l, int[] r) {
        return submitted(peerId, delegate.readBlocks(peerId, l, r));
    }

    static List<Report> reports(PollResult r) {
        List<Report> list = new ArrayList<>(r.doneCount() + r.failedCount());
        r.forEach((id, ok) -> list.add(new Report(id, ok)));
        return list;
    }

    static PollResult result(List<Report> reports) {
        long[] done = reports.stream().filter(Report::done).mapToLong(Report::id).toArray();
        long[] failed = reports.stream().filter(x -> !x.done()).mapToLong(Report::id).toArray();
        return PollResult.of(done, failed);
    }

    private List<Report> deliver(String peer, PollResult raw) {
        List<Report> out = rewrite(peer, reports(raw));
        out.forEach(x -> reported.add(x.id()));
        return out;
    }

    @Override
    public PollResult poll(String peerId) {
        return result(deliver(peerId, delegate.poll(peerId)));
    }

    @Override
    public int poll(String peerId, CompletionHandler h) {
        Objects.requireNonNull(peerId, "peerId");
        Objects.requireNonNull(h, "handler");
        List<Report> out = deliver(peerId, delegate.poll(peerId));
        out.forEach(x -> h.onTerminal(x.id(), x.done()));
        return out.size();
    }

    @Override
    public PollResult pollAll() {
        return result(deliver(null, delegate.pollAll()));
    }

    @Override
    public int pollAll(CompletionHandler h) {
        Objects.requireNonNull(h, "handler");
        List<Report> out = deliver(null, delegate.pollAll());
        out.forEach(x -> h.onTerminal(x.id(), x.done()));
        return out.size();
    }

    @Override
    public PollResult poll(String peerId, long timeout, TimeUnit unit) throws InterruptedException {
        return result(deliver(peerId, delegate.poll(peerId, timeout, unit)));
    }

    @Override
    public int poll(String peerId, CompletionHandler h, long timeout, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(h, "handler");
        List<Report> out = deliver(peerId, delegate.poll(peerId, timeout, unit));
        out.forEach(x -> h.onTerminal(x.id(), x.done()));
        return out.size();
    }

    @Override
    public PollResult pollAll(long timeout, TimeUnit unit) throws InterruptedException {
        return result(deliver(null, delegate.pollAll(timeout, unit)));
    }

    @Override
    public int pollAll(CompletionHandler h, long timeout, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(h, "handler");
        List<Report> out = deliver(null, delegate.pollAll(timeout, unit));
        out.forEach(x -> h.onTerminal(x.id(), x.done()));
        return out.size();
    }
}
