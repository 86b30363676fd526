package io.blockxfer.directory.etcd.internal;

import io.blockxfer.directory.DirectoryEntry;
import io.blockxfer.directory.DirectorySnapshot;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * Lists every key of one range {@code [start, end)} (a {@link io.blockxfer.directory.DirectoryScope}
 * under a prefix: every member, one group, one key) at one revision, in pages of one range read
 * each: the first page is read at etcd's current revision, the others at that same revision, so
 * the pages make one linearizable listing however large it is. A page holds at most
 * {@link #PAGE_SIZE} entries; one that etcd cannot send within the client's response limit (raw
 * values of up to 1.5 MiB each) is asked for again in smaller pages; a listing whose revision is
 * compacted away between pages starts again.
 * Each entry carries the lease its key is attached to (0: none). Nothing blocks: each page's
 * answer is handled on the given executor (never jetcd's event loop).
 *
 * <p><b>Thread safety:</b> thread-safe; each {@link #list()} is independent.
 */
public final class RangeLister {

    /** Entries per page: 256 descriptors of about 1 KB make a 256 KB answer. */
    public static final int PAGE_SIZE = 256;
    private static final int MAX_RESTARTS = 3;
    private static final ByteSequence ZERO = ByteSequence.from(new byte[] {0});

    /** A listing: the entries and the revision they were read at. */
    public record Listing(List<DirectoryEntry> entries, long revision) {
        /** Copies the list. */
        public Listing {
            entries = List.copyOf(entries);
        }
    }

    private final KV kv;
    private final ByteSequence start;
    private final ByteSequence end;
    private final Executor executor;

    /**
     * Lists the keys from {@code start} (inclusive) to {@code end} (exclusive: etcd's range end),
     * continuing on {@code executor}.
     */
    public RangeLister(KV kv, ByteSequence start, ByteSequence end, Executor executor) {
        this.kv = kv;
        this.start = start;
        this.end = end;
        this.executor = executor;
    }

    /**
     * One listing of the keys from {@code start} to {@code end} as a snapshot, continued on the
     * threads that answer (nothing blocks); the future fails with what {@link EtcdConnection#failure}
     * makes of an error ({@code what} names the read).
     */
    public static CompletableFuture<DirectorySnapshot> read(EtcdConnection connection, String start, String end,
            String what) {
        RangeLister lister = new RangeLister(connection.kv(), ByteSequence.from(start, StandardCharsets.UTF_8),
                ByteSequence.from(end, StandardCharsets.UTF_8), Runnable::run);
        return lister.list().handle((listing, error) -> {
            if (error != null) {
                throw connection.failure(what, error);
            }
            return new DirectorySnapshot(listing.revision(), listing.entries());
        });
    }

    /** Starts a listing; the future fails with jetcd's error when a page cannot be read. */
    public CompletableFuture<Listing> list() {
        CompletableFuture<Listing> result = new CompletableFuture<>();
        page(start, 0, PAGE_SIZE, new ArrayList<>(), result, 0);
        return result;
    }

    private void page(ByteSequence from, long revision, int limit, List<DirectoryEntry> acc,
            CompletableFuture<Listing> result, int restarts) {
        if (result.isDone()) {
            return; // the caller gave up
        }
        GetOption.Builder option = GetOption.builder().withRange(end).withLimit(limit);
        if (revision > 0) {
            option.withRevision(revision);
        }
        CompletableFuture<GetResponse> answer;
        try {
            answer = kv.get(from, option.build());
        } catch (RuntimeException e) {
            result.completeExceptionally(e); // the client is closed
            return;
        }
        var unused = answer.whenCompleteAsync((response, error) -> {
            try {
                if (error != null) {
                    if (EtcdErrors.isTooLarge(error) && limit > 1) {
                        page(from, revision, Math.max(1, limit / 4), acc, result, restarts);
                    } else if (EtcdErrors.isCompacted(error) && revision > 0 && restarts < MAX_RESTARTS) {
                        page(start, 0, PAGE_SIZE, new ArrayList<>(), result, restarts + 1);
                    } else {
                        result.completeExceptionally(EtcdErrors.unwrap(error));
                    }
                    return;
                }
                long at = revision > 0 ? revision : response.getHeader().getRevision();
                List<KeyValue> kvs = response.getKvs();
                for (KeyValue e : kvs) {
                    acc.add(new DirectoryEntry(e.getKey().toString(StandardCharsets.UTF_8), e.getValue().getBytes(),
                            e.getModRevision(), e.getLease()));
                }
                if (response.isMore() && !kvs.isEmpty()) {
                    page(kvs.getLast().getKey().concat(ZERO), at, limit, acc, result, restarts);
                } else {
                    result.complete(new Listing(acc, at));
                }
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        }, executor);
    }
}
