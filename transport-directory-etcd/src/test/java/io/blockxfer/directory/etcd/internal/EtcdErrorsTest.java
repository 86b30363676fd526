package io.blockxfer.directory.etcd.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcd.jetcd.common.exception.EtcdExceptionFactory;
import io.grpc.Status;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * Which of jetcd's failures mean "etcd could not be reached now" (retried, and reported as a
 * {@link io.blockxfer.directory.DirectoryUnavailableException}) and which are etcd's refusals.
 */
class EtcdErrorsTest {

    @Test
    void aCallBegunOnAConnectionClosedUnderItIsUnavailabilityNotARefusal() {
        // what gRPC reports when the connection to etcd (or to its proxy) closed just before the call
        var closed = Status.UNKNOWN.withDescription("channel closed").withCause(new ClosedChannelException())
                .asRuntimeException();
        assertTrue(EtcdErrors.isUnavailable(closed));
        assertTrue(EtcdErrors.isUnavailable(new CompletionException(EtcdExceptionFactory.toEtcdException(closed))),
                "as jetcd wraps it, inside a future's exception");
    }

    @Test
    void anUnknownFailureWithoutAClosedChannelIsARefusal() {
        assertFalse(EtcdErrors.isUnavailable(Status.UNKNOWN.withDescription("something else").asRuntimeException()));
        assertFalse(EtcdErrors.isUnavailable(Status.INVALID_ARGUMENT.withCause(new ClosedChannelException())
                .asRuntimeException()), "only UNKNOWN's closed channel is a lost connection");
    }

    @Test
    void theUsualUnavailabilityCodesStayUnavailable() {
        for (Status s : new Status[] {Status.UNAVAILABLE, Status.DEADLINE_EXCEEDED, Status.CANCELLED}) {
            assertTrue(EtcdErrors.isUnavailable(s.asRuntimeException()), s.toString());
        }
    }
}
