package io.blockxfer.holds;

import org.jspecify.annotations.Nullable;

/**
 * The live holds of one peer: a list threaded through the holds themselves (no node per hold), with
 * their count and blocks, for ending them together when the peer is removed and for the per-peer
 * figures.
 *
 * <p><b>Thread safety:</b> guarded by the owner side's lock.
 */
final class PeerHolds {

    final String peer;
    @Nullable Hold head;
    int holds;
    long blocks;

    PeerHolds(String peer) {
        this.peer = peer;
    }

    void add(Hold h) {
        h.prev = null;
        h.next = head;
        if (head != null) {
            head.prev = h;
        }
        head = h;
        holds++;
        blocks += h.blocks.length;
    }

    void remove(Hold h) {
        Hold p = h.prev;
        Hold n = h.next;
        if (p != null) {
            p.next = n;
        } else {
            head = n;
        }
        if (n != null) {
            n.prev = p;
        }
        h.prev = null;
        h.next = null;
        holds--;
        blocks -= h.blocks.length;
    }
}
