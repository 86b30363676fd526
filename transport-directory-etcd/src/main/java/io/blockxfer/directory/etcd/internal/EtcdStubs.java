package io.blockxfer.directory.etcd.internal;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.api.KVGrpc;
import io.etcd.jetcd.api.WatchGrpc;
import io.grpc.CallCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.stub.MetadataUtils;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import org.jspecify.annotations.Nullable;

/**
 * etcd's generated gRPC stubs (the {@code io.etcd.jetcd.api} classes that ship with jetcd) on the
 * one channel of a jetcd client, with jetcd's own authentication: for the calls this module makes
 * itself instead of through jetcd's wrappers, so that they share the client's connection and its
 * token. jetcd 0.8 exposes neither its channel nor its credentials; both are read from its client
 * by reflection ({@code ClientImpl.connectionManager}, {@code ClientConnectionManager.getChannel()}
 * and {@code authCredential()}, {@code AuthCredential.refresh()}), each looked up when the
 * connection is made, so that another jetcd version fails there, naming what it lacks (every etcd
 * test of this module goes through them; {@code EtcdWatchStreamTest} counts the stream).
 *
 * <ul>
 *   <li>{@link #watch()}: the Watch service, for the one watch stream of a connection
 *       ({@link WatchStream}); it requires a leader (etcd's {@code hasleader} header), so that a
 *       member cut off from its cluster's majority ends the stream instead of keeping it silently
 *       open;</li>
 *   <li>{@link #kv()}: the KV service, for the one read of a resolution, without the hand-over to
 *       jetcd's executor that its retrying wrapper makes; it waits for a ready connection, within
 *       the call's deadline ({@link DeadlineInterceptor}).</li>
 * </ul>
 *
 * <p><b>Thread safety:</b> thread-safe; stubs are immutable.
 */
public final class EtcdStubs {

    /** etcd's header that makes a stream require a leader (clientv3's {@code WithRequireLeader}). */
    private static final Metadata.Key<String> HAS_LEADER = Metadata.Key.of("hasleader",
            Metadata.ASCII_STRING_MARSHALLER);

    private final ManagedChannel channel;
    private final @Nullable CallCredentials credentials;
    private final WatchGrpc.WatchStub watch;
    private final KVGrpc.KVStub kv;

    private EtcdStubs(ManagedChannel channel, @Nullable CallCredentials credentials) {
        this.channel = channel;
        this.credentials = credentials;
        Metadata leader = new Metadata();
        leader.put(HAS_LEADER, "true");
        WatchGrpc.WatchStub w = WatchGrpc.newStub(channel)
                .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(leader));
        KVGrpc.KVStub k = KVGrpc.newStub(channel).withWaitForReady();
        if (credentials != null) {
            w = w.withCallCredentials(credentials);
            k = k.withCallCredentials(credentials);
        }
        this.watch = w;
        this.kv = k;
    }

    /**
     * The stubs on {@code client}'s channel, with its credentials when {@code authenticated}.
     *
     * @throws IllegalStateException naming what was not found when jetcd's internals are not as
     *     this module expects (another jetcd version)
     */
    public static EtcdStubs of(Client client, boolean authenticated) {
        try {
            Object manager = field(client, "connectionManager");
            ManagedChannel channel = (ManagedChannel) call(manager, "getChannel");
            CallCredentials credentials = authenticated ? (CallCredentials) call(manager, "authCredential") : null;
            if (credentials != null) {
                var unused = credentials.getClass().getDeclaredMethod("refresh");
            }
            return new EtcdStubs(channel, credentials);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("jetcd's gRPC channel and credentials cannot be reached (" + e + "): this"
                    + " module needs jetcd 0.8.6's ClientImpl.connectionManager, getChannel() and authCredential()", e);
        }
    }

    private static Object field(Object o, String name) throws ReflectiveOperationException {
        Field f = o.getClass().getDeclaredField(name);
        f.setAccessible(true);
        return f.get(o);
    }

    private static Object call(Object o, String name) throws ReflectiveOperationException {
        Method m = o.getClass().getDeclaredMethod(name);
        m.setAccessible(true);
        return m.invoke(o);
    }

    /** The client's channel: its one connection (per endpoint) to etcd. */
    public ManagedChannel channel() {
        return channel;
    }

    /** The Watch service, requiring a leader, authenticated as the client is. */
    public WatchGrpc.WatchStub watch() {
        return watch;
    }

    /** The KV service, waiting for a ready connection, authenticated as the client is. */
    public KVGrpc.KVStub kv() {
        return kv;
    }

    /**
     * Forgets the client's authentication token, so that the next call authenticates again (after
     * etcd refused the token: expired, or older than an auth change). Does nothing without a user.
     */
    public void refreshToken() {
        CallCredentials c = credentials;
        if (c == null) {
            return;
        }
        try {
            Method refresh = c.getClass().getDeclaredMethod("refresh");
            refresh.setAccessible(true);
            refresh.invoke(c);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("jetcd's AuthCredential.refresh() cannot be called: " + e, e);
        }
    }
}
