package io.blockxfer.directory;

import io.blockxfer.directory.internal.Ticker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/** A ticker that moves only when told, and wakes the loops on it when it does. */
final class ManualTicker implements Ticker {
    private final AtomicLong now = new AtomicLong(1);
    private final List<Runnable> wakeUps = new CopyOnWriteArrayList<>();

    @Override
    public long nanos() {
        return now.get();
    }

    @Override
    public void onAdvance(Runnable wakeUp) {
        wakeUps.add(wakeUp);
    }

    void advance(Duration d) {
        now.addAndGet(d.toNanos());
        wakeUps.forEach(Runnable::run);
    }
}
