package io.blockxfer.ucx.internal;

import org.jspecify.annotations.Nullable;
import org.openucx.jucx.UcxCallback;
import org.openucx.jucx.ucp.UcpRequest;

/**
 * The completion of one transfer's UCX requests: the flush after a WRITE's implicit puts, or the
 * gets of a READ, all on one {@link #endpoint}. Counts the requests it waits for (plus a guard held
 * while they are being issued, because a request may complete inside the call that starts it), and
 * keeps the endpoint's count of outstanding requests, which the endpoint's close waits for. Pooled
 * by the {@link RequestTracker}, and reused only when every request it was given has ended;
 * detached from its transfer when the transfer ends another way first (its endpoints closed), so
 * late callbacks find nothing to complete. JUCX may call {@link #onError} for a request that also threw: the tracker
 * counts that call and ignores the throw. JUCX's own log line for each failed request is filtered
 * out ({@link UcxLogFilter}); the loop logs a peer's failure once.
 *
 * <p><b>Thread safety:</b> called by JUCX inside {@code progress()} or the call that started the
 * request, by the owner of the loop's worker; owner only.
 */
final class OpCallback extends UcxCallback {

    private final RequestTracker tracker;
    @Nullable UcxTransfer transfer;
    @Nullable PeerEndpoint endpoint;
    int pending;
    int error;
    @Nullable String errorMessage;

    OpCallback(RequestTracker tracker) {
        this.tracker = tracker;
    }

    @Override
    public void onSuccess(UcpRequest request) {
        countedOff();
        tracker.requestEnded(this, UcsStatus.OK, null);
    }

    @Override
    public void onError(int status, String message) {
        countedOff();
        tracker.requestEnded(this, status, message);
    }

    /** One request of {@link #endpoint} ended; the endpoint is set while any request is outstanding. */
    private void countedOff() {
        PeerEndpoint e = endpoint;
        if (e != null) {
            e.outstanding--;
        }
    }
}
