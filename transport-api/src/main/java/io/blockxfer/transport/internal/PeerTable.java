package io.blockxfer.transport.internal;

import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The peer slots of a managed transport by peer id, and the generation counter that decides which
 * registration of a peer may publish. A slot leaves the table only when it has nothing left to
 * track ({@link PeerSlot#isIdle()}); it is then marked dead, so a thread that found it before
 * its removal takes a fresh one.
 *
 * <p><b>Thread safety:</b> thread-safe; {@link #buryIfIdle} needs the slot's monitor.
 */
public final class PeerTable {

    private static final AtomicLong GENERATIONS = new AtomicLong();

    private final ConcurrentHashMap<String, PeerSlot> slots = new ConcurrentHashMap<>();

    /** A generation never handed out before, in this JVM. */
    public static long nextGeneration() {
        return GENERATIONS.incrementAndGet();
    }

    /** The slot of {@code peerId}, or null. */
    public @Nullable PeerSlot get(String peerId) {
        return slots.get(peerId);
    }

    /** The slot of {@code peerId}, created if absent; may be dead by the time its lock is taken. */
    public PeerSlot slotFor(String peerId) {
        return slots.computeIfAbsent(peerId, PeerSlot::new);
    }

    /** A live view of every slot. */
    public Collection<PeerSlot> all() {
        return slots.values();
    }

    /** Removes the slot if it has nothing left to track. The caller holds the slot's monitor. */
    public void buryIfIdle(PeerSlot slot) {
        if (!slot.dead && slot.isIdle()) {
            slot.dead = true;
            slots.remove(slot.peerId, slot);
        }
    }

    /** Forgets every slot (at the end of close). */
    public void clear() {
        slots.clear();
    }
}
