package io.blockxfer.tck;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * The conformance rules by id: what each checks, its class, where to look when it fails, and the
 * deliberately broken backend the kit's own tests run to prove it can fail. Each rule of
 * {@link TransportConformanceSuite} is declared with {@code @RuleTest(ConformanceRules.X)}, which
 * gives it its display name ({@code [W2] (required) ...}) and the id of every assertion message;
 * the kit's own tests check that every entry here has exactly one rule and every rule an entry.
 *
 * <p><b>Thread safety:</b> immutable.
 */
public enum ConformanceRules {

    // ------------------------------------------------------------------ G: geometry and descriptor
    G1(Area.GEOMETRY, Kind.REQUIRED,
            "the region, fingerprint and descriptor describe the configured transport, in the caller's own memory"
                    + " when it supplied it; a region to allocate that the host cannot hold is refused with"
                    + " InsufficientMemoryException",
            "region geometry, ConfigFingerprint, PeerDescriptor.of; wrap in place; MemoryBudget.check before mapping",
            "descriptor-with-shifted-base, vague-out-of-memory-error"),
    G2(Area.GEOMETRY, Kind.REQUIRED,
            "the descriptor is stable, survives encode and decode, and a decoded copy registers",
            "PeerDescriptor.encode/decode; metadata must be self-contained and the same on every call",
            "descriptor-changes-every-call"),

    // ------------------------------------------------------------------ P: peers
    P1(Area.PEERS, Kind.REQUIRED,
            "a transfer to an unknown peer is not submitted, and every poll form reports nothing",
            "submit must look the peer up first and return NOT_SUBMITTED; empty polls return PollResult.EMPTY",
            "unknown-peer-throws"),
    P2(Area.PEERS, Kind.REQUIRED,
            "a peer with another block length is rejected with a typed error, also by addPeerAsync, and not"
                    + " registered",
            "addPeer and addPeerAsync must compare block lengths on the calling thread, before native work",
            "async-checks-on-the-registration-thread, relabels-block-length"),
    P3(Area.PEERS, Kind.REQUIRED,
            "a peer with another fingerprint or backend is rejected with a typed error; a rejected re-add leaves"
                    + " the registration in place",
            "compare fingerprints and backend names before tearing anything down",
            "relabels-fingerprint, rejected-re-add-removes-the-peer"),
    P4(Area.PEERS, Kind.REQUIRED,
            "a removed peer takes no transfers; removePeer says whether the peer was registered",
            "removePeer must unpublish the registration and return whether there was one",
            "remove-always-true"),
    P5(Area.PEERS, Kind.REQUIRED,
            "removing a peer ends exactly its own transfers, each reported once (failed unless its bytes"
                    + " landed); other peers' transfers complete",
            "per-peer in-flight tables; retire only the removed peer's transfers; owe a report for each",
            "remove-drops-in-flight-reports, hides-failures"),
    P6(Area.PEERS, Kind.REQUIRED,
            "re-adding a peer replaces its registration: later transfers reach the new region, earlier ones"
                    + " are each reported once and never land in the new region",
            "tear the old registration down first; owe reports for its transfers; bind transfers to their"
                    + " registration, not to the peer id",
            "re-add-keeps-the-old-registration"),
    P7(Area.PEERS, Kind.REQUIRED,
            "an asynchronous registration completes its future once the peer takes transfers",
            "the registration thread must publish before completing the future",
            "async-future-completes-before-publishing"),
    P8(Area.PEERS, Kind.REQUIRED,
            "registrations superseded by a remove or a later add never publish and fail with"
                    + " RegistrationSupersededException",
            "generation check at publish; release what was built; distinct exception",
            "superseded-registration-publishes-anyway"),
    P9(Area.PEERS, Kind.REQUIRED,
            "a removed peer's owed reports reach pollAll, and poll(peer) after the peer is added again, each"
                    + " once",
            "keep owed reports of a removed peer until they are polled, also across a re-add",
            "poll-all-skips-removed-peers, re-add-drops-owed-reports"),
    P10(Area.PEERS, Kind.TIMING,
            "transfers that completed but were not polled yet are reported done when their peer is removed or"
                    + " re-added",
            "retiring a registration must read each transfer's status: done stays done",
            "retire-reports-completed-as-failed"),
    P11(Area.PEERS, Kind.REQUIRED,
            "traffic(peer) is empty for an unknown or removed peer, counts every submit since the peer was last added,"
                    + " shows held transfers in flight, and none in flight once every transfer ended, polled or not",
            "count submits per registration under the peer's lock, from 0 again on a re-add; in flight is the"
                    + " transfers of the peer's table whose status is still pending",
            "traffic-counts-only-what-is-in-flight, traffic-counts-ended-transfers-until-polled"),

    // ------------------------------------------------------------------ W: writes
    W1(Area.WRITES, Kind.REQUIRED,
            "a one-block WRITE lands byte for byte and leaves its neighbours and its source alone",
            "offsets: block i at base + i * blockLength on both sides",
            "writes-one-block-off"),
    W2(Area.WRITES, Kind.REQUIRED,
            "a batch WRITE of shuffled blocks lands each block where its index says",
            "index pairing local[i] -> remote[i]",
            "pairs-reversed"),
    W3(Area.WRITES, Kind.REQUIRED,
            "contiguous, reversed, repeated and one-sided runs land exactly, and blocks beside them stay as they"
                    + " were",
            "run coalescing must merge only pairs contiguous on both sides, and copy exactly the run",
            "coalesces-runs-contiguous-on-one-side"),
    W4(Area.WRITES, Kind.REQUIRED,
            "many WRITEs in flight at once all complete, and every one of them lands",
            "in-flight table growth; handle pooling; completion delivery under load",
            "drops-every-50th-write"),
    W5(Area.WRITES, Kind.REQUIRED,
            "empty or unequal index arrays are rejected with IllegalArgumentException; nothing changes and no id"
                    + " is consumed",
            "argument checks before any state change, before taking an id",
            "accepts-empty-transfers, rejected-calls-consume-ids"),
    W6(Area.WRITES, Kind.REQUIRED,
            "out-of-range indices on either side are rejected before any byte moves; nothing is reported and no"
                    + " id is consumed",
            "index checks against the local region and the peer's advertised region",
            "clamps-out-of-range-indices"),
    W7(Area.WRITES, Kind.REQUIRED,
            "null arguments are rejected with NullPointerException naming the argument; nothing changes",
            "Objects.requireNonNull with the argument's name, first thing in every method",
            "null-peer-is-not-submitted"),
    W8(Area.WRITES, Kind.CAPABILITY,
            "no transfer to a stalled target is reported done before its bytes land; after the thaw every block"
                    + " of every transfer lands",
            "status must say DONE only when every block has landed",
            "done-at-submit"),
    W9(Area.WRITES, Kind.REQUIRED,
            "transfers of changing lengths one after another move only their own blocks; a batch allocates nothing per block",
            "pooled transfer state: indices and counts refilled for every transfer; no object per block",
            "pooled-indices-not-cleared, allocates-per-block"),
    W10(Area.WRITES, Kind.REQUIRED,
            "WRITEs to two peers with the same block indices land in their own peer's region only",
            "a transfer must use the peer handle it was submitted with",
            "writes-to-the-last-connected-peer"),
    W11(Area.WRITES, Kind.REQUIRED,
            "the caller may reuse its index arrays as soon as a submit returns",
            "copy the index arrays during submit; never keep the caller's arrays",
            "keeps-the-callers-index-arrays"),
    W12(Area.WRITES, Kind.REQUIRED,
            "every block of a large scattered WRITE has landed by the time it is reported done",
            "status must say DONE only after the last block's copy or put has completed",
            "done-before-the-copy-finishes"),

    // ------------------------------------------------------------------ R: reads
    R1(Area.READS, Kind.CAPABILITY,
            "a one-block READ brings the peer's bytes into the local block and leaves the peer's block alone",
            "READ direction: remote -> local",
            "read-performs-a-write"),
    R2(Area.READS, Kind.CAPABILITY,
            "a batch READ of scattered blocks lands each block where its index says",
            "READ index pairing and coalescing",
            "read-pairs-shifted"),
    R3(Area.READS, Kind.CAPABILITY,
            "without the READ capability, readBlocks is refused with UnsupportedOperationException",
            "UnsupportedOperationException when READ is not declared",
            "read-without-capability-not-submitted"),
    R4(Area.READS, Kind.CAPABILITY,
            "a READ brings the bytes the peer holds when it is submitted, not bytes read earlier",
            "never serve READs from a cache",
            "read-served-from-cache"),

    // ------------------------------------------------------------------ C: completions and polls
    C1(Area.COMPLETIONS, Kind.REQUIRED,
            "ids are unique and increase across peers, operations, failed submits and re-registrations",
            "one id counter per transport",
            "ids-counted-per-peer"),
    C2(Area.COMPLETIONS, Kind.REQUIRED,
            "every transfer is reported exactly once; later polls of every form return the shared empty result",
            "terminal transfers leave the table when reported; return PollResult.EMPTY",
            "drops-a-completion, reports-a-completion-twice"),
    C3(Area.COMPLETIONS, Kind.REQUIRED,
            "poll(peer) reports only that peer's transfers and leaves the others for their own polls",
            "poll(peer) must never touch another peer's transfers",
            "unscoped-poll"),
    C4(Area.COMPLETIONS, Kind.REQUIRED,
            "pollAll reports every peer's transfers, each once",
            "pollAll must visit every peer",
            "poll-all-visits-one-peer"),
    C5(Area.COMPLETIONS, Kind.REQUIRED,
            "the handler form of poll reports each transfer once and returns exactly the number of handler calls",
            "the handler form must report what the result form would, and count what it delivered",
            "handler-count-lags"),
    C6(Area.COMPLETIONS, Kind.REQUIRED,
            "a completion handler, and a dependent of a transfer's future, may call back into the transport, from"
                    + " its own thread and from others",
            "call handlers and complete futures after releasing every lock",
            "handler-called-under-the-lock, dependent-runs-under-the-lock"),
    C7(Area.COMPLETIONS, Kind.CAPABILITY,
            "done and failed are reported as such by every poll form: poll, poll with a handler, pollAll, pollAll"
                    + " with a handler",
            "one delivery path for all four forms; the success flag is the transfer's outcome",
            "handler-reports-failed-as-done"),
    C8(Area.COMPLETIONS, Kind.CAPABILITY,
            "a transfer that finished is reported while an earlier one of the same or another peer is still in"
                    + " flight",
            "report each transfer when it is terminal; never in submission order",
            "reports-in-submission-order"),
    C9(Area.COMPLETIONS, Kind.TIMING,
            "a transfer that completed before its deadline is reported done, even when first polled after it",
            "read the status before checking the deadline",
            "deadline-checked-before-status"),

    // ------------------------------------------------------------------ X: cancel
    X1(Area.CANCELS, Kind.REQUIRED,
            "an immediate cancel of transfers still in flight returns nothing, and they are never reported;"
                    + " other transfers are, and the transport keeps working",
            "cancelled ids must never be reported; keep the native handles until they are terminal",
            "ignores-immediate-cancel, immediate-cancel-returns-ids"),
    X2(Area.CANCELS, Kind.REQUIRED,
            "a wait cancel returns exactly the asked ids still in flight, each once; those are reported later,"
                    + " the others never",
            "return exactly the ids still in flight; they surface later, the rest never",
            "wait-cancel-returns-unknown-ids, wait-cancel-releases-what-it-returns"),
    X3(Area.CANCELS, Kind.REQUIRED,
            "cancelling unknown, negative, repeated or already reported ids is ignored in both modes",
            "ignore ids that are not in flight",
            "cancel-rejects-unknown-ids"),
    X4(Area.CANCELS, Kind.CAPABILITY,
            "a wait cancel of a transfer to a stalled target returns it, and it is reported after the thaw",
            "a stalled transfer is in flight, not terminal",
            "wait-cancel-acts-as-immediate"),
    X5(Area.CANCELS, Kind.TIMING,
            "a cancel of a transfer that completed but was not polled releases it in both modes: a wait cancel"
                    + " does not return it, and it is never reported",
            "read each transfer's status in the wait cancel; terminal means released",
            "wait-cancel-returns-completed-transfers"),
    X6(Area.CANCELS, Kind.REQUIRED,
            "cancelling transfers a removed peer still owes reports for ends those reports, in both modes",
            "cancel must search the owed reports too",
            "cancel-skips-owed-reports"),

    // ------------------------------------------------------------------ F: failures and deadlines
    F1(Area.FAILURES, Kind.TIMING,
            "when a peer dies, its transfers end within the deadline (failed, when they were held), and other"
                    + " peers are unaffected",
            "native errors become failed reports; deadline and peer abort",
            "hides-failures"),
    F2(Area.FAILURES, Kind.TIMING,
            "a stalled peer's transfers are failed by the first poll after the deadline, not before, and never"
                    + " reported again; the peer can be re-added",
            "transferTimeout must fail overdue transfers at the next poll and keep their handles as orphans",
            "hides-failures, delays-failure-reports"),
    F3(Area.FAILURES, Kind.CAPABILITY,
            "a native error while submitting returns an id that is reported failed; it is never thrown",
            "catch engine errors in submit and owe a failed report",
            "swallows-submit-errors"),

    // ------------------------------------------------------------------ M: untrusted descriptors
    M1(Area.DESCRIPTORS, Kind.REQUIRED,
            "every strict prefix, every single-bit flip, trailing bytes and random blobs are rejected by decode"
                    + " with MalformedPeerDescriptorException only",
            "PeerDescriptor.decode: framing, lengths and checksum over every byte",
            "decoder-accepts-a-blob-cut-inside-the-metadata (run on the decoder alone)"),
    M2(Area.DESCRIPTORS, Kind.REQUIRED,
            "garbled backend metadata in a valid envelope is rejected with a typed error and registers nothing;"
                    + " run in a child JVM, so a crash fails the rule",
            "engine connect must parse the metadata strictly before any native call",
            "accepts-garbled-metadata, crashes-on-garbled-metadata"),
    M3(Area.DESCRIPTORS, Kind.REQUIRED,
            "a descriptor claiming one block more, a base one block off, or another peer's memory is rejected"
                    + " with a typed error; one claiming fewer blocks limits the indices; run in a child JVM",
            "engine connect must check the descriptor against what the peer really registered",
            "accepts-one-block-more, tolerates-a-shifted-base"),
    M4(Area.DESCRIPTORS, Kind.REQUIRED,
            "with a deployment key ring, a transport signs its descriptor, and unsigned, wrongly signed and"
                    + " tampered descriptors are rejected as unauthenticated before the backend sees them; run in a"
                    + " child JVM",
            "check the MAC (DeploymentKeyRing.verify) before engine connect; a DataTransport of its own must too",
            "ignores-the-key-ring, reports-tampering-as-malformed"),

    // ------------------------------------------------------------------ K: key rotation
    K1(Area.KEYS, Kind.REQUIRED,
            "with a key ring of several keys, descriptors signed under each are accepted and each is verified"
                    + " with the key it names: a MAC made with another key of the ring is rejected",
            "DeploymentKeyRing.verify with the key the descriptor names; never the signing key, never every key in"
                    + " turn",
            "verifies-with-the-signing-key"),
    K2(Area.KEYS, Kind.REQUIRED,
            "a key dropped from the ring is refused: descriptors signed with it are rejected as unauthenticated"
                    + " (unknown key) and register nothing, while the keys the ring still holds are accepted",
            "verify with the transport's own ring only; keep no keys of the rings of other transports",
            "remembers-dropped-keys"),

    // ------------------------------------------------------------------ T: timeliness
    T1(Area.TIMELINESS, Kind.TIMING,
            "in the polling-thread mode a caller's polls alone end a one-block transfer within the bound the"
                    + " backend declares, and their work is counted on the polling thread",
            "poll must drive progress (TransferEngine.progress) on the polling thread; the backend's own thread is"
                    + " only the fallback",
            "polls-do-not-drive, polls-do-no-work-beside-a-fast-fallback"),
    T2(Area.TIMELINESS, Kind.CAPABILITY,
            "with the target held, submits past the declared queue capacity each return a real id within the"
                    + " declared bound; none fails for lack of space, and every one ends exactly once after the release",
            "a full queue must slow the submitter (bounded), never fail its transfer",
            "fails-submits-when-its-queue-is-full"),
    T3(Area.TIMELINESS, Kind.TIMING,
            "under a steady stream of completing transfers, a transfer held for less than its deadline is never"
                    + " failed, and one held longer is failed by the first poll after its own deadline",
            "measure each transfer's deadline from its own submit; keep submit times with their ids when the"
                    + " in-flight bookkeeping moves",
            "deadline-from-the-first-busy-submit"),

    // ------------------------------------------------------------------ L: lifecycle
    L1(Area.LIFECYCLE, Kind.REQUIRED,
            "close is idempotent, also from two threads at once, and a racing close returns only after the"
                    + " first one finished",
            "close must be safe to call twice and concurrently; later callers wait for the first",
            "close-not-idempotent, concurrent-close-returns-early"),
    L2(Area.LIFECYCLE, Kind.REQUIRED,
            "every call after close throws IllegalStateException with a message",
            "every method must check the closed state",
            "answers-polls-after-close"),
    L3(Area.LIFECYCLE, Kind.TIMING,
            "close waits for a transfer in flight until it ends, and returns within its timeout when it never"
                    + " does",
            "close must drain transfers, bounded by closeTimeout, then abort and leave memory allocated",
            "close-does-not-wait"),
    L4(Area.LIFECYCLE, Kind.TIMING,
            "close waits for transfers cancelled immediately while still in flight",
            "an immediate cancel must keep the native handle (orphan) until it is terminal",
            "close-forgets-cancelled-transfers"),
    L5(Area.LIFECYCLE, Kind.REQUIRED,
            "no thread a transport started outlives its close",
            "close must stop the backend's threads (progress, workers, registration)",
            "engine-close-skipped"),

    // ------------------------------------------------------------------ S: threads
    S1(Area.CONCURRENCY, Kind.REQUIRED,
            "concurrent submits and polls from several threads, one peer each, all land",
            "per-peer locking; no shared mutable state without synchronisation",
            "shared-peer-field-without-lock"),
    S2(Area.CONCURRENCY, Kind.REQUIRED,
            "under a stress of writes, reads, polls, cancels and peer churn, every id ends exactly once, through"
                    + " its own peer, never after an immediate cancel returned",
            "exactly once under concurrent submit, poll, cancel and peer churn",
            "misroutes-handler-reports, ignores-immediate-cancel"),
    S3(Area.CONCURRENCY, Kind.REQUIRED,
            "close racing with submits, polls and cancels from other threads returns in time; the others see"
                    + " results or IllegalStateException only",
            "state a racing call may still use must outlive close; racing calls fail with IllegalStateException",
            "racing-calls-see-released-state"),

    // ------------------------------------------------------------------ A: waits and futures
    A1(Area.AWAITS, Kind.TIMING,
            "a thread parked in a wait returns within the wake bound after a transfer of its scope ends, also one"
                    + " submitted by another thread after it parked, and with the transfer's report",
            "the engine must fire its completion signal (TransferEngine.bindCompletionSignal) whenever a transfer"
                    + " may have become terminal, or leave it to the status thread; while callers wait it must drive"
                    + " transfers itself",
            "signal-never-fired"),
    A2(Area.AWAITS, Kind.REQUIRED,
            "a wait returns the shared empty result no sooner than its limit, also while another peer's transfer"
                    + " ends; a zero limit is a plain poll; a wait on an unknown peer returns at once; a negative or"
                    + " absurd limit is refused with IllegalArgumentException",
            "park for the remaining limit; report only the waited peer's transfers; check the limit first",
            "wait-returns-at-once, wait-on-a-peer-reports-any-peer"),
    A3(Area.AWAITS, Kind.REQUIRED,
            "an interrupted waiter throws InterruptedException with its interrupt status cleared, also when"
                    + " interrupted before it waits, and consumes nothing: the next poll reports what had ended",
            "check the interrupt before polling; park interruptibly; never drop what a poll took",
            "interrupted-wait-drops-reports"),
    A4(Area.AWAITS, Kind.TIMING,
            "close wakes a parked waiter, which throws IllegalStateException within the wake bound; futures still"
                    + " pending fail with IllegalStateException; waits after close throw it",
            "close must wake every waiter and fail every pending future",
            "close-leaves-waiters-parked"),
    A5(Area.AWAITS, Kind.REQUIRED,
            "an asynchronous WRITE or READ completes its future once its bytes landed, with its id and peer, is"
                    + " never reported by a poll or a wait, and an unknown peer gives a future already failed with"
                    + " TransferFailedException",
            "each id goes to exactly one surface; complete the future only when the transfer is terminal",
            "async-completes-at-submit"),
    A6(Area.AWAITS, Kind.REQUIRED,
            "cancelling a future cancels its transfer; an immediate cancel of its id cancels the future; a wait"
                    + " cancel returns its id while in flight and the future completes later; a transfer failed at"
                    + " its submit or, started, by its deadline fails its future with TransferFailedException naming"
                    + " id and peer",
            "TransferFuture.cancel must cancel the transfer in the transport; both cancel modes must reach futures",
            "future-cancel-leaves-the-transfer, overdue-transfer-completes-its-future"),
    A7(Area.AWAITS, Kind.TIMING,
            "a thousand virtual threads, each waiting for its own transfers (futures joined or blocked on with get,"
                    + " and waits), all finish, and no carrier thread is pinned (JFR jdk.VirtualThreadPinned records"
                    + " nothing)",
            "park with java.util.concurrent (LockSupport), never inside native code or an upcall; a thread blocked"
                    + " on a future drives the transport as a wait does, outside every native frame",
            "waits-pin-the-carrier, joins-pin-the-carrier"),
    A8(Area.AWAITS, Kind.REQUIRED,
            "under the stress run with polls, waits and futures mixed on one transport, every id ends exactly"
                    + " once, on the surface it was submitted for",
            "each id to exactly one surface; waits report exactly what a poll would",
            "wait-drops-a-report-now-and-then"),
    A9(Area.AWAITS, Kind.TIMING,
            "a thread blocked in get, get with a limit or join of a transfer's future returns within the wake bound"
                    + " of A1 after the transfer ended, also when it parked first, with the future complete and the"
                    + " bytes landed",
            "a thread blocked on a future must be woken as a waiter is: by the completion signal (drive and look as"
                    + " a wait does: TransferFuture.Driver) or by the future's completion, never only by a timer",
            "join-sleeps-through-the-wake-up"),
    A10(Area.AWAITS, Kind.TIMING,
            "blocking on a held transfer's future honours limits, interrupts and close as a wait does: get with a"
                    + " limit throws TimeoutException no sooner than its limit, an interrupted get throws"
                    + " InterruptedException with the status cleared, join is not interruptible and keeps the"
                    + " interrupt, neither ends the transfer, and close wakes a blocked join, whose future fails",
            "a Driver must return at the limit and on an interrupt, leaving the future pending; join retries and"
                    + " sets the interrupt again; close must wake threads blocked on futures and fail the futures",
            "timed-get-ignores-its-limit"),

    // ------------------------------------------------------------------ N: notifications
    N1(Area.NOTIFICATIONS, Kind.CAPABILITY,
            "a WRITE's notification reaches the target after every block of the WRITE holds its bytes, once, with"
                    + " the transfer's id and payload, naming the sender by the peer id the target gave it (or its"
                    + " agent name when the target registered none)",
            "send the message only once the transfer's bytes are visible at the target (UCX: flush, then the"
                    + " message on the same endpoint; NIXL: the message on the transfer request)",
            "notifies-before-the-bytes-land"),
    N2(Area.NOTIFICATIONS, Kind.CAPABILITY,
            "a READ's notification reaches the owner of the blocks only after the reader has its copy: the owner"
                    + " overwriting them on delivery never changes the reader's bytes",
            "send a READ's message only after the local copy completed",
            "notifies-before-the-bytes-land"),
    N3(Area.NOTIFICATIONS, Kind.CAPABILITY,
            "notifications of many transfers (polled, asynchronous) and messages from four threads at once each"
                    + " arrive exactly once, naming their own transfer",
            "one message per transfer, sent once; the target's queue and sink must neither drop nor duplicate",
            "delivers-notifications-twice, drops-every-50th-notification"),
    N4(Area.NOTIFICATIONS, Kind.CAPABILITY,
            "no notification arrives for a transfer refused at submit or failed by the backend, one cancelled or"
                    + " overdue while held at most once and after its bytes; the done one after them notifies once",
            "hand the message to the engine only with a transfer that started; never send it for a failure",
            "notifies-failed-transfers, notifies-a-cancelled-transfer-again"),
    N5(Area.NOTIFICATIONS, Kind.CAPABILITY,
            "a payload over Notification.MAX_PAYLOAD_BYTES is refused with IllegalArgumentException naming its length"
                    + " before anything is submitted, by every form; one of exactly the bound arrives intact",
            "check the payload's length first, before an id is taken",
            "truncates-oversized-notifications"),
    N6(Area.NOTIFICATIONS, Kind.CAPABILITY,
            "a message without a transfer reaches a registered peer once, as MESSAGE without a transfer id; to an"
                    + " unknown or removed peer sendNotification returns false and nothing arrives",
            "sendNotification: look the registration up, hand the frame to the engine, report whether it went",
            "loses-standalone-messages"),
    N7(Area.NOTIFICATIONS, Kind.CAPABILITY,
            "with a key ring, notifications from a process with the deployment's key are authenticated, and those"
                    + " of a process without it or with another key are refused, counted and never delivered",
            "the receiving transport checks each frame's MAC, freshness and replay before it queues it",
            "accepts-unauthenticated-notifications"),
    N8(Area.NOTIFICATIONS, Kind.CAPABILITY,
            "the target's queue holds at most its capacity; messages that find it full are counted as dropped, and"
                    + " the sender's next delivered message says how many of its own were dropped",
            "a bounded queue that never blocks the backend; count drops per sender",
            "notification-queue-ignores-its-capacity"),
    N9(Area.NOTIFICATIONS, Kind.CAPABILITY,
            "close completes the notification subscriber, discards and counts what is queued, and ends a waiting"
                    + " pollNotifications with IllegalStateException",
            "wake notification waiters and complete the subscriber at close; count discarded notifications",
            "close-leaves-notification-waiters"),
    N10(Area.NOTIFICATIONS, Kind.TIMING,
            "a waiting pollNotifications returns as soon as a message arrives, returns 0 at its limit, refuses bad"
                    + " limits, and an interrupted one throws InterruptedException and consumes nothing",
            "park on the transport's waiters and wake on arrival; check the interrupt before taking anything",
            "notification-wait-sleeps-to-its-limit"),
    N11(Area.NOTIFICATIONS, Kind.CAPABILITY,
            "the notification subscriber receives what it requests and no more, a second concurrent subscriber is"
                    + " refused, a cancelled one leaves what is queued to polls, and request(0) signals"
                    + " IllegalArgumentException",
            "deliver only on demand, one subscriber at a time; Reactive Streams rules 1.9, 3.9 and 3.12",
            "publisher-ignores-demand");

    /** The groups of rules, one {@code @Nested} class of the suite each. <b>Thread safety:</b> immutable. */
    public enum Area {
        /** G: geometry and descriptors of a transport. */
        GEOMETRY,
        /** P: registering and removing peers. */
        PEERS,
        /** W: writes and their bytes. */
        WRITES,
        /** R: reads and their bytes. */
        READS,
        /** C: completions and the poll forms. */
        COMPLETIONS,
        /** X: both cancel modes. */
        CANCELS,
        /** F: failures and deadlines. */
        FAILURES,
        /** M: untrusted descriptors. */
        DESCRIPTORS,
        /** K: rotating deployment keys. */
        KEYS,
        /** T: what the progress modes, queues and deadlines promise about time. */
        TIMELINESS,
        /** L: close and calls after it. */
        LIFECYCLE,
        /** S: threads. */
        CONCURRENCY,
        /** A: waits and futures. */
        AWAITS,
        /** N: notifications, the target's side of a transfer. */
        NOTIFICATIONS
    }

    /** How a rule applies to a backend. <b>Thread safety:</b> immutable. */
    public enum Kind {
        /** Every backend must pass it. */
        REQUIRED,
        /** Runs where the backend declares a capability or promise ({@link TckDeclarations}) or the harness
         * can stall targets; skipped with the reason otherwise. */
        CAPABILITY,
        /** Asserts a time bound or waits for a completion to settle; needs a machine not starved for
         * minutes ({@link TckEnvironment}). */
        TIMING
    }

    private final Area area;
    private final Kind kind;
    private final String checks;
    private final String whereToLook;
    private final String provenBy;

    ConformanceRules(Area area, Kind kind, String checks, String whereToLook, String provenBy) {
        this.area = area;
        this.kind = kind;
        this.checks = checks;
        this.whereToLook = whereToLook;
        this.provenBy = provenBy;
    }

    /** The rule's group. */
    public Area area() {
        return area;
    }

    /** Whether the rule is required, capability-dependent or timing-dependent. */
    public Kind kind() {
        return kind;
    }

    /** What the rule checks. */
    public String checks() {
        return checks;
    }

    /** What to look at in a backend when the rule fails. */
    public String whereToLook() {
        return whereToLook;
    }

    /**
     * The broken backends of the kit's own tests that this rule catches, by name (comma-separated);
     * they prove the rule can fail.
     */
    public String provenBy() {
        return provenBy;
    }

    /**
     * The rules whose outcome a target in another process can change, for a suite that runs only
     * them in that placement ({@link TransportConformanceSuite#rules()}) beside a whole-kit suite
     * in one JVM: bytes that cross into another address space (W1, W12, R1), a target process that
     * is stalled (W8, X4, F2, T2, N4) or killed (F1), a key ring held by another process (K2), a
     * waiter woken by a transfer to another process (A1), a thread blocked on a transfer's future
     * woken as a waiter is (A9), and notifications checked in the target's own process: where their
     * bytes are, under load, against its key ring and its queue (N1-N4, N7, N8). The stall and kill
     * rules are skipped where all targets share the initiator's JVM, so a backend certified in one
     * JVM needs these in two processes too. A new set on each call.
     */
    public static Set<ConformanceRules> acrossProcesses() {
        return EnumSet.of(W1, W12, R1, W8, X4, F1, F2, T2, K2, A1, N1, N2, N3, N4, N7, N8, A9);
    }

    /**
     * The rules whose outcome depends on where the regions' memory comes from (the backend's own
     * allocation or the caller's, {@code RegionSpec.wrap}), for a suite in caller memory beside a
     * whole-kit suite in backend memory on the same engine path: the region and its descriptor (G1,
     * G2), a peer's region replaced (P6), every rule that checks where bytes land (W1-W4, W9, W10,
     * W12, R1, R2, R4), the bounds a descriptor claims (M3), close releasing the registration
     * under a transfer (L3), and the bytes a notification must find (N1, N2). A backend whose engine
     * takes another path for caller memory (UCX emulates RMA with messages there) runs the whole kit
     * in caller memory instead. A new set on each call.
     */
    public static Set<ConformanceRules> regionMemory() {
        return EnumSet.of(G1, G2, P6, W1, W2, W3, W4, W9, W10, W12, R1, R2, R4, M3, L3, N1, N2);
    }

    /**
     * The rules whose outcome a release of the backend's native library can change, for a suite that
     * certifies another release of a library already certified by the whole kit (the NIXL version
     * matrix, {@code scripts/nixl-matrix}): what the library's metadata, registrations, transfers,
     * status reports, handle releases, threads and failure detection decide (geometry, registration
     * and replacement, every byte-moving rule, completions as the library reports them, cancels of
     * native handles in flight, dead and stalled peers, garbled and lying metadata handed to the
     * library, the timeliness and close rules, the stress runs, the notifications the library
     * carries). Left out are the rules the managed layer above every engine decides alone, whatever
     * the library: argument checks, ids, bookkeeping of reports, envelopes and key rings, waits and
     * futures. A new set on each call.
     */
    public static Set<ConformanceRules> nativeLibrary() {
        return EnumSet.of(G1, G2, P2, P3, P5, P6, P7, W1, W2, W3, W4, W8, W9, W10, W12, R1, R2, R4, C7, C8, X1,
                X2, X4, F1, F2, F3, M2, M3, T1, T2, L3, L4, L5, S1, S2, N1, N2, N3, N6);
    }

    /** The display name of the rule: {@code [W2] (required) a batch WRITE ...}. */
    public String displayName() {
        return "[" + name() + "] (" + kind.name().toLowerCase(Locale.ROOT) + ") " + checks;
    }
}
