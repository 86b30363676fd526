package io.blockxfer.multihost;

import io.blockxfer.tck.process.UcxShmFiles;
import io.blockxfer.transport.DataTransport;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The service soak's schedule, run on one thread that owns every peer's state:
 * <ul>
 *   <li><b>churn</b>: every {@code churnInterval}, one peer is removed ({@code removePeer} while its
 *       session streams, so its transfers in flight fail) or the removed one is re-added (its
 *       session is stopped, which waits for every id of the phase, then {@code addPeer} with the
 *       same descriptor and a new phase); at every n-th re-add the target checks its memory
 *       against the session's model;</li>
 *   <li><b>kills</b>: every {@code killInterval}, the next registered target but the last (which
 *       lives for the whole run) is killed (SIGKILL)
 *       and restarted on a thread of its own. The session is left alone until it has seen the
 *       death (it is down: every transfer of the phase reported) or the transfer deadline plus a
 *       second has passed, when the control plane removes the peer as a service would; then the
 *       new incarnation is added with its new descriptor, on fresh local blocks, with a new
 *       session.</li>
 * </ul>
 * A session that failed although nobody removed or killed its peer is noted as unexplained.
 *
 * <p><b>Thread safety:</b> not thread-safe; every method runs on the conductor thread, except the
 * restarts, which run on the restarter thread and hand their targets over through futures.
 */
final class SoakConductor implements AutoCloseable {

    /** Starts a target incarnation. Thread safety: called from the conductor and restarter threads. */
    @FunctionalInterface
    interface TargetFactory {
        SoakTarget start(String incarnationName, long family) throws IOException;
    }

    private static final int MAX_RESTART_ATTEMPTS = 3;
    private static final int MAX_THREAD_DUMPS = 3;

    private final SoakSettings settings;
    private final DataTransport transport;
    private final TargetFactory factory;
    private final SoakLog log;
    private final SoakTally tally = new SoakTally();
    private final IdLedger ledger = new IdLedger();
    private final List<SoakPeer> peers = new ArrayList<>();
    private final List<KillRecord> kills = new ArrayList<>();
    private final List<String> anomalies = new ArrayList<>();
    private final List<SoakTarget> everyTarget = new ArrayList<>();
    private final SplittableRandom families;
    private final ExecutorService restarter = Executors.newSingleThreadExecutor(
            r -> Thread.ofPlatform().daemon().name("soak-restarter").unstarted(r));
    private int churnCursor;
    private int killCursor;

    long removes;
    long adds;
    long addFailures;
    long removeMicrosMax;
    long addMicrosMax;
    long addMicrosSum;
    long removalPhases;
    long removalFailures;
    long removalFailuresMax;
    long unexplainedFailures;
    long verifications;
    long verifiedTargetBlocks;
    long targetMismatches;
    long tickLateMaxMillis;
    long restartFailures;
    long stalls;
    long windows;
    long windowDoneMin = Long.MAX_VALUE;
    long windowDoneMax;
    private long windowStartDone;
    private long windowStartMillis;

    SoakConductor(SoakSettings settings, DataTransport transport, TargetFactory factory, SoakLog log) {
        this.settings = settings;
        this.transport = transport;
        this.factory = factory;
        this.log = log;
        this.families = new SplittableRandom(settings.seed() ^ 0x5eed50a4L);
    }

    SoakTally tally() {
        return tally;
    }

    IdLedger ledger() {
        return ledger;
    }

    List<KillRecord> kills() {
        return kills;
    }

    List<String> anomalies() {
        return anomalies;
    }

    /** Every target incarnation started, in order. */
    synchronized List<SoakTarget> everyTarget() {
        return List.copyOf(everyTarget);
    }

    /** Starts the targets, registers them and starts a session with each. */
    void start() throws IOException {
        for (int i = 0; i < settings.targets(); i++) {
            String name = "t" + (i + 1);
            SoakTarget target = startTarget(name + "#1");
            SoakPeer p = new SoakPeer(name, i, target);
            peers.add(p);
            transport.addPeer(p.name, target.descriptor());
            p.registeredAtMillis = System.currentTimeMillis();
            p.session = newSession(p);
            p.session.start();
            log.line("started " + target + " and registered it");
        }
    }

    private SoakTarget startTarget(String incarnation) throws IOException {
        long family;
        synchronized (families) {
            family = families.nextLong();
        }
        SoakTarget t = factory.start(incarnation, family);
        synchronized (this) {
            everyTarget.add(t);
        }
        return t;
    }

    private PeerSession newSession(SoakPeer p) {
        int first = (p.index * 2 + p.slot) * settings.workload().localBlocksPerPeer();
        return new PeerSession(transport, p.name, settings.targetBlocks(), p.target.family(), first,
                settings.workload(), ledger, tally, settings.seed() * 1_000_003L + p.index * 1_009L + p.incarnation,
                settings.settle());
    }

    /** Churns and kills until {@code duration} has passed. */
    void run(Duration duration, Runnable everyHalfMinute) throws InterruptedException {
        long t0 = System.nanoTime();
        long end = t0 + duration.toNanos();
        long churn = settings.churnInterval().toNanos();
        long killEvery = settings.killInterval().toNanos();
        long nextTick = t0 + churn;
        long nextKill = t0 + (killEvery > 0 ? killEvery : duration.toNanos() + 1);
        long nextReport = t0 + TimeUnit.SECONDS.toNanos(30);
        long window = settings.livenessWindow().toNanos();
        long nextWindow = t0 + window;
        openWindow();
        while (true) {
            long now = System.nanoTime();
            if (now - end >= 0) {
                return;
            }
            long wait = Math.min(nextTick, end) - now;
            if (wait > 0) {
                Thread.sleep(Duration.ofNanos(wait));
                continue;
            }
            tickLateMaxMillis = Math.max(tickLateMaxMillis, (now - nextTick) / 1_000_000);
            nextTick = Math.max(nextTick + churn, now);
            recoverDead();
            if (now - nextKill >= 0) {
                nextKill += killEvery;
                killNext();
            }
            churnOnce();
            if (now - nextWindow >= 0) {
                nextWindow += window;
                closeWindow();
            }
            if (now - nextReport >= 0) {
                nextReport += TimeUnit.SECONDS.toNanos(30);
                everyHalfMinute.run();
            }
        }
    }

    // ------------------------------------------------------------------ churn

    private void churnOnce() throws InterruptedException {
        for (SoakPeer p : peers) {
            if (p.state == SoakPeer.State.REMOVED) {
                readd(p);
                return;
            }
        }
        SoakPeer p = nextUp(true);
        if (p != null) {
            remove(p);
        }
    }

    /**
     * The next registered peer in the churn's or the kills' round. Kills spare the last peer (when
     * there are two or more): it lives for the whole run, so whatever a backend frees only when a
     * peer's process dies still piles up, as it would for a peer that never dies.
     */
    private SoakPeer nextUp(boolean churn) {
        int round = churn || peers.size() < 2 ? peers.size() : peers.size() - 1;
        for (int i = 0; i < round; i++) {
            int at = (churn ? churnCursor++ : killCursor++) % round;
            SoakPeer p = peers.get(at);
            if (p.state == SoakPeer.State.UP) {
                return p;
            }
        }
        return null;
    }

    private void remove(SoakPeer p) {
        noteUnexplained(p, "before the churn removed it");
        long t0 = System.nanoTime();
        boolean known = transport.removePeer(p.name);
        removeMicrosMax = Math.max(removeMicrosMax, (System.nanoTime() - t0) / 1000);
        if (!known) {
            anomaly("removePeer(" + p.name + ") said the peer was not registered");
        }
        p.state = SoakPeer.State.REMOVED;
        removes++;
    }

    private void readd(SoakPeer p) throws InterruptedException {
        SessionStats s = p.session.stop();
        account(p, s);
        removalPhases++;
        removalFailures += s.failed;
        removalFailuresMax = Math.max(removalFailuresMax, s.failed);
        p.readds++;
        if (p.readds % settings.verifyEvery() == 0) {
            verify(p, "after removal #" + p.readds);
        }
        if (register(p)) {
            p.session.start();
            p.state = SoakPeer.State.UP;
            adds++;
        }
    }

    /** {@code addPeer} with the current incarnation's descriptor; a failure leaves the peer removed. */
    private boolean register(SoakPeer p) {
        long t0 = System.nanoTime();
        try {
            transport.addPeer(p.name, p.target.descriptor());
        } catch (RuntimeException e) {
            addFailures++;
            p.state = SoakPeer.State.REMOVED;
            anomaly("addPeer(" + p.name + ") of a live " + p.target.name() + " failed: " + oneLine(e));
            return false;
        }
        long micros = (System.nanoTime() - t0) / 1000;
        addMicrosMax = Math.max(addMicrosMax, micros);
        addMicrosSum += micros;
        p.registeredAtMillis = System.currentTimeMillis();
        return true;
    }

    // ------------------------------------------------------------------ kills

    private void killNext() {
        SoakPeer p = nextUp(false);
        if (p == null) {
            log.line("no registered peer to kill at this time");
            return;
        }
        noteUnexplained(p, "before it was killed");
        SoakTarget dead = p.target;
        KillRecord k = new KillRecord(p.name, dead.name(), dead.pid(), System.currentTimeMillis());
        kills.add(k);
        p.kill = k;
        p.state = SoakPeer.State.DEAD;
        p.windowDisturbed = true;
        p.restartAttempts = 0;
        dead.kill();
        log.line("killed " + dead + "; restarting it");
        String next = p.name + "#" + (p.incarnation + 1);
        p.restart = CompletableFuture.supplyAsync(() -> {
            dead.close();
            k.shm = UcxShmFiles.sweep(dead.shmFiles());
            return startQuietly(next, k);
        }, restarter);
    }

    private SoakTarget startQuietly(String incarnation, KillRecord k) {
        try {
            SoakTarget t = startTarget(incarnation);
            k.readyAtMillis = System.currentTimeMillis();
            return t;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Re-adds restarted peers whose new incarnation is ready, once their session saw the death or gave up. */
    private void recoverDead() throws InterruptedException {
        for (SoakPeer p : peers) {
            if (p.state != SoakPeer.State.DEAD || p.restartAttempts >= MAX_RESTART_ATTEMPTS || !p.restart.isDone()) {
                continue;
            }
            KillRecord k = p.kill;
            SoakTarget fresh;
            try {
                fresh = p.restart.get();
            } catch (ExecutionException e) {
                restartFailures++;
                k.restartError = oneLine(e.getCause());
                anomaly("restart of " + p.name + " failed (attempt " + (p.restartAttempts + 1) + "): "
                        + k.restartError);
                if (++p.restartAttempts < MAX_RESTART_ATTEMPTS) { // after the last, the peer stays dead
                    String next = p.name + "#" + (p.incarnation + 1);
                    p.restart = CompletableFuture.supplyAsync(() -> startQuietly(next, k), restarter);
                }
                continue;
            }
            boolean down = p.session.state() == PeerSession.State.DOWN;
            long sinceKill = System.currentTimeMillis() - k.atMillis;
            if (!down && sinceKill < settings.transferTimeout().toMillis() + 1_000) {
                continue;
            }
            k.detected = down;
            if (!down) {
                transport.removePeer(p.name);
            }
            SessionStats s = p.session.stop();
            account(p, s);
            endIncarnation(p);
            k.failed = s.failed;
            k.lost = s.lost;
            k.doneInPhase = s.done;
            k.firstFailureAtMillis = s.firstFailureAtMillis;
            k.downAtMillis = s.downAtMillis;
            p.target = fresh;
            p.incarnation++;
            p.slot ^= 1;
            p.incarnationDone = 0;
            p.bornOf = k;
            p.session = newSession(p);
            p.restart = null;
            if (register(p)) {
                k.readdedAtMillis = System.currentTimeMillis();
                p.session.start();
                p.state = SoakPeer.State.UP;
                log.line(String.format("re-added %s %d ms after the kill (%s; %d failed in the killed phase)",
                        fresh, k.readdedAtMillis - k.atMillis, down ? "death seen " + k.after(k.firstFailureAtMillis)
                                + " ms after the kill" : "death not seen, removed", s.failed));
            }
        }
    }

    // ------------------------------------------------------------------ bookkeeping

    private void account(SoakPeer p, SessionStats s) {
        tally.add(s);
        p.incarnationDone += s.done;
        p.windowVerified += s.verifiedReads + s.verifiedWrites;
    }

    private void openWindow() {
        windowStartMillis = System.currentTimeMillis();
        windowStartDone = tally.done;
        for (SoakPeer p : peers) {
            p.windowVerified = 0;
            p.windowDisturbed = p.state == SoakPeer.State.DEAD;
        }
    }

    /**
     * Ends a liveness window: a peer that was registered or churned throughout it (neither killed
     * nor restarting) and verified no transfer in it is stalled, which no count of ids or bytes
     * would show, since the transfers of a stalled transport just fail when their peer is removed.
     */
    private void closeWindow() {
        long done = tally.done - windowStartDone;
        windows++;
        windowDoneMin = Math.min(windowDoneMin, done);
        windowDoneMax = Math.max(windowDoneMax, done);
        long to = log.seconds();
        long from = to - (System.currentTimeMillis() - windowStartMillis + 500) / 1000;
        for (SoakPeer p : peers) {
            if (!p.windowDisturbed && p.state != SoakPeer.State.DEAD && p.windowVerified == 0) {
                stalls++;
                anomaly(p.name + " (" + p.target.name() + ") verified no transfer between " + from + " s and " + to
                        + " s although it was neither killed nor restarting: " + tally.summary()
                        + (stalls <= MAX_THREAD_DUMPS ? "; threads: " + dumpThreads("stall-" + stalls) : ""));
            }
        }
        openWindow();
    }

    /** Writes every thread's stack to {@code <report>/<name>-threads.txt}, for whoever looks into a stall. */
    private String dumpThreads(String name) {
        StringBuilder b = new StringBuilder();
        Thread.getAllStackTraces().forEach((t, stack) -> {
            b.append('"').append(t.getName()).append("\" ").append(t.getState()).append('\n');
            for (StackTraceElement e : stack) {
                b.append("    at ").append(e).append('\n');
            }
            b.append('\n');
        });
        java.nio.file.Path file = settings.reportDir().resolve(name + "-threads.txt");
        try {
            java.nio.file.Files.writeString(file, b);
            return file.toString();
        } catch (IOException e) {
            return "not written: " + e;
        }
    }

    private void endIncarnation(SoakPeer p) {
        if (p.bornOf != null) {
            p.bornOf.doneAfter = p.incarnationDone;
            p.bornOf.livedMillis = System.currentTimeMillis() - p.bornOf.readdedAtMillis;
        }
    }

    private void noteUnexplained(SoakPeer p, String when) {
        PeerSession.State st = p.session.state();
        if (st == PeerSession.State.FAILING || st == PeerSession.State.DOWN) {
            unexplainedFailures++;
            anomaly("session with " + p.target.name() + " failed " + when + ": " + tally.lastFailure(p.name));
        }
    }

    private void verify(SoakPeer p, String when) {
        String model = tally.model(p.name);
        EventFields v;
        try {
            v = p.target.request("VERIFY " + (model.isEmpty() ? "-" : model));
        } catch (RuntimeException e) {
            targetMismatches++;
            anomaly("could not verify " + p.target.name() + " " + when + ": " + oneLine(e));
            return;
        }
        verifications++;
        verifiedTargetBlocks += v.num("checked");
        if (v.num("mismatches") > 0) {
            targetMismatches += v.num("mismatches");
            anomaly(p.target.name() + " " + when + ": " + v.num("mismatches") + " of " + v.num("checked")
                    + " blocks differ from the model, first block " + v.get("first"));
        }
    }

    void anomaly(String what) {
        if (anomalies.size() < 200) {
            anomalies.add(what);
        }
        log.line("ANOMALY: " + what);
    }

    // ------------------------------------------------------------------ the end

    /**
     * Stops every session (waiting for every id), checks every live target's memory against its
     * model, waits for restarts in progress, and removes every peer.
     */
    void finish() throws InterruptedException {
        for (SoakPeer p : peers) {
            if (p.state == SoakPeer.State.UP) {
                noteUnexplained(p, "before the end");
            }
            SessionStats s = p.session.stop();
            account(p, s);
            switch (p.state) {
                case UP, REMOVED -> {
                    verify(p, "at the end");
                    endIncarnation(p);
                }
                case DEAD -> {
                    p.kill.failed = s.failed;
                    p.kill.lost = s.lost;
                    p.kill.detected = p.session.state() == PeerSession.State.DOWN || s.failed > 0;
                    p.kill.firstFailureAtMillis = s.firstFailureAtMillis;
                    p.kill.downAtMillis = s.downAtMillis;
                    p.kill.restartError = p.kill.restartError.isEmpty() ? "the run ended during the restart"
                            : p.kill.restartError;
                    endIncarnation(p);
                    try {
                        p.target = p.restart.get(3, TimeUnit.MINUTES);
                    } catch (ExecutionException | TimeoutException e) {
                        anomaly("restart of " + p.name + " did not finish: " + oneLine(e));
                    }
                }
            }
            transport.removePeer(p.name);
        }
    }

    /** Ends every target incarnation ever started (a killed one is only waited for). */
    void closeTargets() {
        for (SoakTarget t : everyTarget()) {
            try {
                t.close();
            } catch (RuntimeException e) {
                anomaly("closing " + t + ": " + oneLine(e));
            }
        }
    }

    @Override
    public void close() {
        restarter.shutdownNow();
    }

    static String oneLine(Throwable e) {
        return String.valueOf(e).replace('\n', ' ');
    }
}
