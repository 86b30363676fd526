package io.blockxfer.multihost;

import java.io.IOException;
import java.util.List;

/**
 * A peer container running the target role: a passive region of {@code blocks} blocks.
 *
 * <p><b>Thread safety:</b> as {@link PeerHost}.
 */
final class TargetHost extends PeerHost {

    private volatile long family;

    TargetHost(Testbed bed, String name, int blocks, long family) throws IOException {
        super(bed, name, List.of("--role", "target", "--blocks", Integer.toString(blocks), "--block-length",
                Long.toString(bed.blockLength()), "--timeout-ms", Long.toString(bed.transferTimeout().toMillis())));
        fillAll(family);
    }

    /** Every block {@code b} gets the pattern {@code BlockPattern.seed(family, b)}. */
    void fillAll(long newFamily) {
        request("FILLALL " + newFamily);
        this.family = newFamily;
    }

    /** The pattern family the blocks were last filled with. */
    long family() {
        return family;
    }

    /**
     * Checks the blocks an initiator's {@code MODEL} event lists against the patterns it says they
     * hold.
     *
     * @return the target's answer: {@code checked=}, {@code mismatches=}, {@code first=}
     */
    EventFields verify(String model) {
        return request("VERIFY " + (model.isEmpty() ? "-" : model));
    }
}
