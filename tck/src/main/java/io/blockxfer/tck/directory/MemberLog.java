package io.blockxfer.tck.directory;

import io.blockxfer.directory.MembershipListener;
import io.blockxfer.directory.Refusal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Records a membership's listener calls as lines ({@code "added b-1 17"},
 * {@code "refused BAD_MAC b-1 ..."}, {@code "lost 17"}, {@code "published 18"},
 * {@code "released b-1 17"}) and waits for them.
 *
 * <p><b>Thread safety:</b> thread-safe (synchronized).
 */
class MemberLog implements MembershipListener {

    private final Duration timeout;
    private final List<String> lines = new ArrayList<>();
    private final List<Refusal> refusals = new ArrayList<>();

    MemberLog(Duration timeout) {
        this.timeout = timeout;
    }

    synchronized void add(String line) {
        lines.add(line);
        notifyAll();
    }

    synchronized List<String> lines() {
        return List.copyOf(lines);
    }

    synchronized List<Refusal> refusals() {
        return List.copyOf(refusals);
    }

    long count(String prefix) {
        return lines().stream().filter(l -> l.startsWith(prefix)).count();
    }

    /** Waits for a line that {@code matches}, and returns it. */
    synchronized String await(Predicate<String> matches, String msg) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        while (true) {
            for (String l : lines) {
                if (matches.test(l)) {
                    return l;
                }
            }
            long left = end - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError(msg + " within " + timeout.toMillis() + " ms; the membership said " + lines);
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }

    /** Waits for a line starting with {@code prefix}. */
    String await(String prefix, String msg) throws InterruptedException {
        return await(l -> l.startsWith(prefix), msg);
    }

    @Override
    public void published(String memberId, long epoch) {
        add("published " + epoch);
    }

    @Override
    public void leaseLost(String memberId, long epoch, String reason) {
        add("lost " + epoch);
    }

    @Override
    public void entryRestored(String memberId, long epoch, String reason) {
        add("restored " + epoch);
    }

    @Override
    public void entrySuperseded(String memberId, long epoch, long newerEpoch) {
        add("superseded " + epoch + " " + newerEpoch);
    }

    @Override
    public void publishFailed(String memberId, Throwable cause) {
        add("publish-failed " + cause);
    }

    @Override
    public void memberAdded(String memberId, long epoch) {
        add("added " + memberId + " " + epoch);
    }

    @Override
    public void memberUpdated(String memberId, long epoch) {
        add("updated " + memberId + " " + epoch);
    }

    @Override
    public void memberReRegistered(String memberId, long epoch) {
        add("reregistered " + memberId + " " + epoch);
    }

    @Override
    public void memberRemoved(String memberId, long epoch) {
        add("removed " + memberId + " " + epoch);
    }

    @Override
    public void memberReleased(String memberId, long epoch, String why) {
        add("released " + memberId + " " + epoch);
    }

    @Override
    public void registrationFailed(String memberId, long epoch, Throwable cause) {
        add("registration-failed " + memberId + " " + epoch + " " + cause);
    }

    @Override
    public void refused(Refusal refusal) {
        synchronized (this) {
            refusals.add(refusal);
        }
        add("refused " + refusal.reason() + " " + refusal.memberId() + " " + refusal.key());
    }

    @Override
    public void disconnected(String reason) {
        add("disconnected");
    }

    @Override
    public void reconnected(long revision, boolean resync) {
        add(resync ? "resynced" : "resumed");
    }
}
