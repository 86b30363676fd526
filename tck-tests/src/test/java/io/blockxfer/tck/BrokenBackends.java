package io.blockxfer.tck;

import static io.blockxfer.tck.ConformanceRules.A1;
import static io.blockxfer.tck.ConformanceRules.A10;
import static io.blockxfer.tck.ConformanceRules.A2;
import static io.blockxfer.tck.ConformanceRules.A3;
import static io.blockxfer.tck.ConformanceRules.A4;
import static io.blockxfer.tck.ConformanceRules.A5;
import static io.blockxfer.tck.ConformanceRules.A6;
import static io.blockxfer.tck.ConformanceRules.A7;
import static io.blockxfer.tck.ConformanceRules.A8;
import static io.blockxfer.tck.ConformanceRules.A9;
import static io.blockxfer.tck.ConformanceRules.C1;
import static io.blockxfer.tck.ConformanceRules.C2;
import static io.blockxfer.tck.ConformanceRules.C3;
import static io.blockxfer.tck.ConformanceRules.C4;
import static io.blockxfer.tck.ConformanceRules.C5;
import static io.blockxfer.tck.ConformanceRules.C6;
import static io.blockxfer.tck.ConformanceRules.C7;
import static io.blockxfer.tck.ConformanceRules.C8;
import static io.blockxfer.tck.ConformanceRules.C9;
import static io.blockxfer.tck.ConformanceRules.F1;
import static io.blockxfer.tck.ConformanceRules.F2;
import static io.blockxfer.tck.ConformanceRules.F3;
import static io.blockxfer.tck.ConformanceRules.G1;
import static io.blockxfer.tck.ConformanceRules.G2;
import static io.blockxfer.tck.ConformanceRules.L1;
import static io.blockxfer.tck.ConformanceRules.L2;
import static io.blockxfer.tck.ConformanceRules.L3;
import static io.blockxfer.tck.ConformanceRules.L4;
import static io.blockxfer.tck.ConformanceRules.L5;
import static io.blockxfer.tck.ConformanceRules.M2;
import static io.blockxfer.tck.ConformanceRules.M3;
import static io.blockxfer.tck.ConformanceRules.M4;
import static io.blockxfer.tck.ConformanceRules.N1;
import static io.blockxfer.tck.ConformanceRules.N10;
import static io.blockxfer.tck.ConformanceRules.N11;
import static io.blockxfer.tck.ConformanceRules.N2;
import static io.blockxfer.tck.ConformanceRules.N3;
import static io.blockxfer.tck.ConformanceRules.N4;
import static io.blockxfer.tck.ConformanceRules.N5;
import static io.blockxfer.tck.ConformanceRules.N6;
import static io.blockxfer.tck.ConformanceRules.N7;
import static io.blockxfer.tck.ConformanceRules.N8;
import static io.blockxfer.tck.ConformanceRules.N9;
import static io.blockxfer.tck.ConformanceRules.P1;
import static io.blockxfer.tck.ConformanceRules.P10;
import static io.blockxfer.tck.ConformanceRules.P11;
import static io.blockxfer.tck.ConformanceRules.P2;
import static io.blockxfer.tck.ConformanceRules.P3;
import static io.blockxfer.tck.ConformanceRules.P4;
import static io.blockxfer.tck.ConformanceRules.P5;
import static io.blockxfer.tck.ConformanceRules.P6;
import static io.blockxfer.tck.ConformanceRules.P7;
import static io.blockxfer.tck.ConformanceRules.P8;
import static io.blockxfer.tck.ConformanceRules.P9;
import static io.blockxfer.tck.ConformanceRules.R1;
import static io.blockxfer.tck.ConformanceRules.R2;
import static io.blockxfer.tck.ConformanceRules.R3;
import static io.blockxfer.tck.ConformanceRules.R4;
import static io.blockxfer.tck.ConformanceRules.S1;
import static io.blockxfer.tck.ConformanceRules.S2;
import static io.blockxfer.tck.ConformanceRules.S3;
import static io.blockxfer.tck.ConformanceRules.W1;
import static io.blockxfer.tck.ConformanceRules.W10;
import static io.blockxfer.tck.ConformanceRules.W11;
import static io.blockxfer.tck.ConformanceRules.W12;
import static io.blockxfer.tck.ConformanceRules.W2;
import static io.blockxfer.tck.ConformanceRules.W3;
import static io.blockxfer.tck.ConformanceRules.W4;
import static io.blockxfer.tck.ConformanceRules.W5;
import static io.blockxfer.tck.ConformanceRules.W6;
import static io.blockxfer.tck.ConformanceRules.W7;
import static io.blockxfer.tck.ConformanceRules.W8;
import static io.blockxfer.tck.ConformanceRules.W9;
import static io.blockxfer.tck.ConformanceRules.X1;
import static io.blockxfer.tck.ConformanceRules.X2;
import static io.blockxfer.tck.ConformanceRules.X3;
import static io.blockxfer.tck.ConformanceRules.X4;
import static io.blockxfer.tck.ConformanceRules.X5;
import static io.blockxfer.tck.ConformanceRules.X6;

import io.blockxfer.loopback.LoopbackProvider;
import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.spi.TransferEngine;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * The deliberately broken backends of the kit's own tests, each with the rule that must catch
 * it: decorators of a working loopback initiator (a {@code DataTransport} that bypasses the managed
 * transport) and broken loopback engines under the managed transport.
 */
final class BrokenBackends {

    /**
     * One broken backend.
     *
     * @param name what is broken, as {@link ConformanceRules#provenBy()} names it
     * @param rule the rule that must catch it
     * @param harness the harness that opens it
     * @param base the working harness of the same kind, which must pass the same rule
     */
    record Variant(String name, ConformanceRules rule, Supplier<TckHarness> harness, Base base) {
        @Override
        public String toString() {
            return name + " -> [" + rule + "]";
        }
    }

    /** The working harness a broken variant is made from. */
    enum Base {
        /** The loopback backend found by name (what LoopbackConformanceTest certifies). */
        LOOPBACK,
        /** Loopback through its test constructor, with the engine decorator left out. */
        LOOPBACK_ENGINE,
        /** Loopback without the READ capability. */
        LOOPBACK_WITHOUT_READ;

        InJvmHarness harness() {
            return switch (this) {
                case LOOPBACK -> LoopbackConformanceTest.loopbackHarness();
                case LOOPBACK_ENGINE -> engineHarness(UnaryOperator.identity(), ALL);
                case LOOPBACK_WITHOUT_READ -> engineHarness(UnaryOperator.identity(), WITHOUT_READ);
            };
        }
    }

    static final Set<Capability> ALL = new LoopbackProvider().capabilities();
    static final Set<Capability> WITHOUT_READ;

    static {
        EnumSet<Capability> c = EnumSet.copyOf(ALL);
        c.remove(Capability.READ);
        WITHOUT_READ = Set.copyOf(c);
    }

    private BrokenBackends() {
    }

    static InJvmHarness engineHarness(UnaryOperator<TransferEngine> engine, Set<Capability> capabilities) {
        return InJvmHarness.of(new LoopbackProvider(engine, capabilities))
                .withDeclarations(LoopbackConformanceTest.DECLARATIONS);
    }

    /** Transports of {@code provider}, a broken variant of loopback, with loopback's declarations. */
    static InJvmHarness providerHarness(io.blockxfer.transport.spi.TransportProvider provider) {
        return InJvmHarness.of(provider).withDeclarations(LoopbackConformanceTest.DECLARATIONS);
    }

    private static Variant transport(String name, ConformanceRules rule, UnaryOperator<DataTransport> breakage) {
        return new Variant(name, rule, () -> LoopbackConformanceTest.loopbackHarness().withInitiatorDecorator(breakage),
                Base.LOOPBACK);
    }

    private static Variant engine(String name, ConformanceRules rule, UnaryOperator<TransferEngine> breakage) {
        return new Variant(name, rule, () -> engineHarness(breakage, ALL), Base.LOOPBACK_ENGINE);
    }

    /** Every broken backend with the rule that must catch it. */
    static List<Variant> all() {
        return List.of(
                transport("descriptor-with-shifted-base", G1, BrokenTransports.descriptorWithShiftedBase()),
                new Variant("vague-out-of-memory-error", G1,
                        () -> providerHarness(new BrokenPromises.VagueOutOfMemoryError()), Base.LOOPBACK),
                transport("descriptor-changes-every-call", G2, BrokenTransports.descriptorChangesEveryCall()),

                transport("unknown-peer-throws", P1, BrokenTransports.unknownPeerThrows()),
                transport("async-checks-on-the-registration-thread", P2,
                        BrokenTransports.asyncChecksOnTheRegistrationThread()),
                transport("relabels-block-length", P2, BrokenTransports.relabelsBlockLength()),
                transport("relabels-fingerprint", P3, BrokenTransports.relabelsFingerprint()),
                transport("rejected-re-add-removes-the-peer", P3, BrokenTransports.rejectedReAddRemovesThePeer()),
                transport("remove-always-true", P4, BrokenTransports.removeAlwaysTrue()),
                transport("remove-drops-in-flight-reports", P5, BrokenTransports.removeDropsInFlightReports()),
                transport("hides-failures", P5, BrokenTransports.hidesFailures()),
                transport("re-add-keeps-the-old-registration", P6, BrokenTransports.reAddKeepsTheOldRegistration()),
                transport("async-future-completes-before-publishing", P7,
                        BrokenTransports.asyncFutureCompletesBeforePublishing()),
                transport("superseded-registration-publishes-anyway", P8,
                        BrokenTransports.supersededRegistrationPublishesAnyway()),
                transport("poll-all-skips-removed-peers", P9, BrokenTransports.pollAllSkipsRemovedPeers()),
                transport("re-add-drops-owed-reports", P9, BrokenTransports.reAddDropsOwedReports()),
                transport("retire-reports-completed-as-failed", P10, BrokenTransports.retireReportsCompletedAsFailed()),
                transport("traffic-counts-only-what-is-in-flight", P11,
                        BrokenTransports.trafficCountsOnlyWhatIsInFlight()),
                transport("traffic-counts-ended-transfers-until-polled", P11,
                        BrokenTransports.trafficCountsEndedTransfersUntilPolled()),

                transport("writes-one-block-off", W1, BrokenTransports.writesOneBlockOff()),
                engine("pairs-reversed", W2, BrokenEngines.pairsReversed()),
                engine("coalesces-runs-contiguous-on-one-side", W3, BrokenEngines.coalescesRunsContiguousOnOneSide()),
                engine("drops-every-50th-write", W4, BrokenEngines.dropsEvery50thWrite()),
                transport("accepts-empty-transfers", W5, BrokenTransports.acceptsEmptyTransfers()),
                transport("rejected-calls-consume-ids", W5, BrokenTransports.rejectedCallsConsumeIds()),
                transport("clamps-out-of-range-indices", W6, BrokenTransports.clampsOutOfRangeIndices()),
                transport("null-peer-is-not-submitted", W7, BrokenTransports.nullPeerIsNotSubmitted()),
                engine("done-at-submit", W8, BrokenEngines.doneAtSubmit()),
                engine("pooled-indices-not-cleared", W9, BrokenEngines.pooledIndicesNotCleared()),
                transport("allocates-per-block", W9, BrokenTransports.allocatesPerBlock()),
                engine("writes-to-the-last-connected-peer", W10, BrokenEngines.writesToTheLastConnectedPeer()),
                engine("keeps-the-callers-index-arrays", W11, BrokenEngines.keepsTheCallersIndexArrays()),
                engine("done-before-the-copy-finishes", W12, BrokenEngines.doneBeforeTheCopyFinishes()),

                engine("read-performs-a-write", R1, BrokenEngines.readPerformsAWrite()),
                engine("read-pairs-shifted", R2, BrokenEngines.readPairsShifted()),
                new Variant("read-without-capability-not-submitted", R3, () -> Base.LOOPBACK_WITHOUT_READ.harness()
                        .withInitiatorDecorator(BrokenTransports.readWithoutCapabilityNotSubmitted()),
                        Base.LOOPBACK_WITHOUT_READ),
                engine("read-served-from-cache", R4, BrokenEngines.readServedFromCache()),

                transport("ids-counted-per-peer", C1, BrokenTransports.idsCountedPerPeer()),
                transport("drops-a-completion", C2, BrokenTransports.dropsACompletion()),
                transport("reports-a-completion-twice", C2, BrokenTransports.reportsACompletionTwice()),
                transport("unscoped-poll", C3, BrokenTransports.unscopedPoll()),
                transport("poll-all-visits-one-peer", C4, BrokenTransports.pollAllVisitsOnePeer()),
                transport("handler-count-lags", C5, BrokenTransports.handlerCountLags()),
                transport("handler-called-under-the-lock", C6, BrokenTransports.handlerCalledUnderTheLock()),
                transport("dependent-runs-under-the-lock", C6, BrokenTransports.dependentRunsUnderTheLock()),
                transport("handler-reports-failed-as-done", C7, BrokenTransports.handlerReportsFailedAsDone()),
                transport("reports-in-submission-order", C8, BrokenTransports.reportsInSubmissionOrder()),
                transport("deadline-checked-before-status", C9, BrokenTransports.deadlineCheckedBeforeStatus()),

                transport("ignores-immediate-cancel", X1, BrokenTransports.ignoresImmediateCancel()),
                transport("immediate-cancel-returns-ids", X1, BrokenTransports.immediateCancelReturnsIds()),
                transport("wait-cancel-returns-unknown-ids", X2, BrokenTransports.waitCancelReturnsUnknownIds()),
                transport("wait-cancel-releases-what-it-returns", X2,
                        BrokenTransports.waitCancelReleasesWhatItReturns()),
                transport("cancel-rejects-unknown-ids", X3, BrokenTransports.cancelRejectsUnknownIds()),
                transport("wait-cancel-acts-as-immediate", X4, BrokenTransports.waitCancelActsAsImmediate()),
                transport("wait-cancel-returns-completed-transfers", X5,
                        BrokenTransports.waitCancelReturnsCompletedTransfers()),
                transport("cancel-skips-owed-reports", X6, BrokenTransports.cancelSkipsOwedReports()),

                transport("hides-failures", F1, BrokenTransports.hidesFailures()),
                transport("hides-failures", F2, BrokenTransports.hidesFailures()),
                transport("delays-failure-reports", F2, BrokenTransports.delaysFailureReports()),
                engine("swallows-submit-errors", F3, BrokenEngines.swallowsSubmitErrors()),

                transport("accepts-garbled-metadata", M2, new BrokenTransports.AcceptsGarbledMetadata()),
                transport("crashes-on-garbled-metadata", M2, new BrokenTransports.CrashesOnGarbledMetadata()),
                transport("untyped-rejection", M2, new BrokenTransports.UntypedRejection()),
                engine("accepts-one-block-more", M3, BrokenEngines.acceptsOneBlockMore()),
                transport("tolerates-a-shifted-base", M3, new BrokenTransports.ToleratesAShiftedBase()),
                new Variant("ignores-the-key-ring", M4, () -> InJvmHarness.of(new BrokenTransports.IgnoresTheKeyRing()),
                        Base.LOOPBACK),
                transport("reports-tampering-as-malformed", M4, new BrokenTransports.ReportsTamperingAsMalformed()),

                new Variant("verifies-with-the-signing-key", ConformanceRules.K1,
                        () -> providerHarness(new BrokenPromises.VerifiesWithTheSigningKey()), Base.LOOPBACK),
                new Variant("remembers-dropped-keys", ConformanceRules.K2,
                        () -> providerHarness(new BrokenPromises.RemembersDroppedKeys()), Base.LOOPBACK),

                engine("polls-do-not-drive", ConformanceRules.T1, BrokenEngines.pollsDoNotDrive()),
                engine("polls-do-no-work-beside-a-fast-fallback", ConformanceRules.T1,
                        BrokenEngines.pollsDoNoWorkBesideAFastFallback()),
                engine("fails-submits-when-its-queue-is-full", ConformanceRules.T2,
                        BrokenEngines.failsSubmitsWhenItsQueueIsFull()),
                new Variant("deadline-from-the-first-busy-submit", ConformanceRules.T3,
                        () -> providerHarness(new BrokenPromises.DeadlineFromTheFirstBusySubmit()), Base.LOOPBACK),

                transport("close-not-idempotent", L1, BrokenTransports.closeNotIdempotent()),
                transport("concurrent-close-returns-early", L1, BrokenTransports.concurrentCloseReturnsEarly()),
                transport("answers-polls-after-close", L2, BrokenTransports.answersPollsAfterClose()),
                transport("close-does-not-wait", L3, BrokenTransports.closeDoesNotWait()),
                transport("close-forgets-cancelled-transfers", L4, BrokenTransports.closeForgetsCancelledTransfers()),
                engine("engine-close-skipped", L5, BrokenEngines.engineCloseSkipped()),

                transport("shared-peer-field-without-lock", S1, BrokenTransports.sharedPeerFieldWithoutLock()),
                transport("misroutes-handler-reports", S2, BrokenTransports.misroutesHandlerReports()),
                transport("ignores-immediate-cancel", S2, BrokenTransports.ignoresImmediateCancel()),
                transport("racing-calls-see-released-state", S3, BrokenTransports.racingCallsSeeReleasedState()),

                engine("signal-never-fired", A1, BrokenWaits.signalNeverFired()),
                transport("wait-returns-at-once", A2, BrokenWaits.waitReturnsAtOnce()),
                transport("wait-on-a-peer-reports-any-peer", A2, BrokenWaits.waitOnAPeerReportsAnyPeer()),
                transport("interrupted-wait-drops-reports", A3, BrokenWaits.interruptedWaitDropsReports()),
                transport("close-leaves-waiters-parked", A4, BrokenWaits.closeLeavesWaitersParked()),
                transport("async-completes-at-submit", A5, BrokenWaits.asyncCompletesAtSubmit()),
                transport("future-cancel-leaves-the-transfer", A6, BrokenWaits.futureCancelLeavesTheTransfer()),
                transport("overdue-transfer-completes-its-future", A6, BrokenWaits.overdueTransferCompletesItsFuture()),
                transport("waits-pin-the-carrier", A7, BrokenWaits.waitsPinTheCarrier()),
                transport("wait-drops-a-report-now-and-then", A8, BrokenWaits.waitDropsAReportNowAndThen()),
                transport("joins-pin-the-carrier", A7, BrokenWaits.joinsPinTheCarrier()),
                transport("join-sleeps-through-the-wake-up", A9, BrokenWaits.joinSleepsThroughTheWakeUp()),
                transport("timed-get-ignores-its-limit", A10, BrokenWaits.timedGetIgnoresItsLimit()),

                engine("notifies-before-the-bytes-land", N1, BrokenNotifications.notifiesBeforeTheBytesLand()),
                engine("notifies-before-the-bytes-land", N2, BrokenNotifications.notifiesBeforeTheBytesLand()),
                engine("delivers-notifications-twice", N3, BrokenNotifications.deliversNotificationsTwice()),
                engine("drops-every-50th-notification", N3, BrokenNotifications.dropsEvery50thNotification()),
                transport("notifies-failed-transfers", N4, BrokenNotifications.notifiesFailedTransfers()),
                transport("notifies-a-cancelled-transfer-again", N4,
                        BrokenNotifications.notifiesACancelledTransferAgain()),
                transport("truncates-oversized-notifications", N5, BrokenNotifications.truncatesOversizedNotifications()),
                transport("loses-standalone-messages", N6, BrokenNotifications.losesStandaloneMessages()),
                new Variant("accepts-unauthenticated-notifications", N7,
                        () -> providerHarness(new BrokenNotifications.AcceptsUnauthenticatedNotifications()),
                        Base.LOOPBACK),
                new Variant("notification-queue-ignores-its-capacity", N8,
                        () -> providerHarness(new BrokenNotifications.NotificationQueueIgnoresItsCapacity()),
                        Base.LOOPBACK),
                transport("close-leaves-notification-waiters", N9, BrokenNotifications.closeLeavesNotificationWaiters()),
                transport("notification-wait-sleeps-to-its-limit", N10,
                        BrokenNotifications.notificationWaitSleepsToItsLimit()),
                transport("publisher-ignores-demand", N11, BrokenNotifications.publisherIgnoresDemand()));
    }
}
