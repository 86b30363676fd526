package io.blockxfer.directory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** Records a membership's callbacks as lines ("added b 17", "refused BAD_MAC /d/x") and waits for them. */
final class Recorder implements MembershipListener {
    private final List<String> lines = new ArrayList<>();

    private synchronized void add(String line) {
        lines.add(line);
        notifyAll();
    }

    synchronized List<String> lines() {
        return List.copyOf(lines);
    }

    /** Waits up to 10 s for a line that {@code matches}, and returns it. */
    synchronized String await(Predicate<String> matches, String what) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            for (String l : lines) {
                if (matches.test(l)) {
                    return l;
                }
            }
            long left = end - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("no " + what + " within 10 s; heard " + lines);
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }

    String await(String prefix) throws InterruptedException {
        return await(l -> l.startsWith(prefix), "'" + prefix + "'");
    }

    long count(String prefix) {
        return lines().stream().filter(l -> l.startsWith(prefix)).count();
    }

    @Override public void published(String memberId, long epoch) { add("published " + epoch); }
    @Override public void leaseLost(String memberId, long epoch, String reason) { add("lost " + epoch + " " + reason); }
    @Override public void entryRestored(String memberId, long epoch, String reason) {
        add("restored " + epoch + " " + reason);
    }
    @Override public void entrySuperseded(String memberId, long epoch, long newer) {
        add("superseded " + epoch + " " + newer);
    }
    @Override public void publishFailed(String memberId, Throwable cause) { add("publish-failed " + cause); }
    @Override public void memberAdded(String memberId, long epoch) { add("added " + memberId + " " + epoch); }
    @Override public void memberUpdated(String memberId, long epoch) { add("updated " + memberId + " " + epoch); }
    @Override public void memberReRegistered(String memberId, long epoch) {
        add("reregistered " + memberId + " " + epoch);
    }
    @Override public void memberRemoved(String memberId, long epoch) { add("removed " + memberId + " " + epoch); }
    @Override public void memberReleased(String memberId, long epoch, String why) {
        add("released " + memberId + " " + epoch + " " + why);
    }
    @Override public void registrationFailed(String memberId, long epoch, Throwable cause) {
        add("registration-failed " + memberId + " " + epoch + " " + cause);
    }
    @Override public void refused(Refusal r) { add("refused " + r.reason() + " " + r.key() + " " + r.message()); }
    @Override public void disconnected(String reason) { add("disconnected " + reason); }
    @Override public void reconnected(long revision, boolean resync) { add("reconnected " + revision + " " + resync); }
}
