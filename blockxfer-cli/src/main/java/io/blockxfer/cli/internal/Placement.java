package io.blockxfer.cli.internal;

/**
 * Where a benchmark's target lives.
 *
 * <p><b>Thread safety:</b> an enum; immutable.
 */
public enum Placement {
    /** Initiator and target in this process. */
    IN_PROCESS("in-process"),
    /** The target in a child JVM on this host ({@code --processes 2}). */
    CHILD_PROCESS("child-process"),
    /** The target served by {@code bench --serve}, reached over the network ({@code --connect}). */
    REMOTE("remote");

    private final String label;

    Placement(String label) {
        this.label = label;
    }

    /** The name in reports. */
    public String label() {
        return label;
    }
}
