package io.blockxfer.directory.etcd.internal;

import com.google.protobuf.ByteString;
import io.blockxfer.directory.DirectoryEntry;
import io.blockxfer.directory.DirectorySnapshot;
import io.etcd.jetcd.api.KeyValue;
import io.etcd.jetcd.api.RangeRequest;
import io.etcd.jetcd.api.RangeResponse;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One linearizable read of one key, made with etcd's generated KV stub on the connection's channel
 * ({@link EtcdStubs#kv()}): the read a resolution costs. The request goes out on the caller's
 * thread and the answer completes the future on gRPC's thread, with no hand-over in between (jetcd's
 * own {@code get} hands each call to its executor first, to retry it). A token etcd refuses (expired,
 * or older than an auth change) is renewed and the read made once more; other failures are what
 * {@link EtcdConnection#failure} makes of them. The call's deadline is the operation timeout
 * ({@link DeadlineInterceptor}).
 *
 * <p><b>Thread safety:</b> thread-safe; each {@link #read} is independent.
 */
public final class KeyReader {

    private final EtcdConnection connection;

    public KeyReader(EtcdConnection connection) {
        this.connection = connection;
    }

    /** Reads {@code key}; {@code what} names the read in messages. Never blocks. */
    public CompletableFuture<DirectorySnapshot> read(String key, String what) {
        CompletableFuture<DirectorySnapshot> result = new CompletableFuture<>();
        RangeRequest request = RangeRequest.newBuilder().setKey(ByteString.copyFromUtf8(key)).build();
        send(request, what, result, true);
        return result;
    }

    private void send(RangeRequest request, String what, CompletableFuture<DirectorySnapshot> result,
            boolean mayRenewToken) {
        try {
            connection.stubs().kv().range(request, new StreamObserver<>() {
                @Override
                public void onNext(RangeResponse response) {
                    List<DirectoryEntry> entries = new ArrayList<>(response.getKvsCount());
                    for (KeyValue kv : response.getKvsList()) {
                        entries.add(new DirectoryEntry(kv.getKey().toStringUtf8(), kv.getValue().toByteArray(),
                                kv.getModRevision(), kv.getLease()));
                    }
                    connection.reachable();
                    result.complete(new DirectorySnapshot(response.getHeader().getRevision(), entries));
                }

                @Override
                public void onError(Throwable t) {
                    if (mayRenewToken && tokenRefused(t)) {
                        connection.stubs().refreshToken();
                        send(request, what, result, false);
                        return;
                    }
                    result.completeExceptionally(connection.failure(what, t));
                }

                @Override
                public void onCompleted() {
                }
            });
        } catch (RuntimeException e) {
            result.completeExceptionally(connection.failure(what, e)); // the channel is shut down
        }
    }

    private static boolean tokenRefused(Throwable t) {
        String message = String.valueOf(EtcdErrors.unwrap(t).getMessage());
        return message.contains("invalid auth token") || message.contains("auth store is old");
    }
}
