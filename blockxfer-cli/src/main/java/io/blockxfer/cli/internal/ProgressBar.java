package io.blockxfer.cli.internal;

import java.io.Console;
import java.io.PrintWriter;
import java.io.Writer;
import java.util.Optional;

/**
 * A one-line progress bar redrawn in place with carriage returns, only on a terminal. Updated
 * between measuring phases, never from a measured loop.
 *
 * <p><b>Thread safety:</b> not thread-safe; driven by the benchmark thread.
 */
public final class ProgressBar {

    private static final int WIDTH = 30;

    private final PrintWriter out;
    private final boolean enabled;
    private int total;
    private int done;
    private int lastLength;

    private ProgressBar(PrintWriter out, boolean enabled) {
        this.out = out;
        this.enabled = enabled;
    }

    /** A bar on {@code out} when this process talks to a terminal, else one that prints nothing. */
    public static ProgressBar onTerminal(PrintWriter out) {
        // System.console() is null only where the JDK is configured without a console implementation
        return new ProgressBar(out, Optional.ofNullable(System.console()).map(Console::isTerminal).orElse(false));
    }

    /** A bar that prints nothing. */
    public static ProgressBar off() {
        return new ProgressBar(new PrintWriter(Writer.nullWriter()), false);
    }

    /** Starts over with {@code steps} steps. */
    public void start(int steps) {
        total = Math.max(1, steps);
        done = 0;
    }

    /** Shows {@code label} for the step about to run. */
    public void show(String label) {
        if (!enabled) {
            return;
        }
        int filled = (int) ((long) WIDTH * done / total);
        String line = "[" + "#".repeat(filled) + "-".repeat(WIDTH - filled) + "] "
                + String.format("%3d%%", 100 * done / total) + "  " + label;
        out.print("\r" + line + " ".repeat(Math.max(0, lastLength - line.length())));
        out.flush();
        lastLength = line.length();
    }

    /** Marks one step done. */
    public void step() {
        done = Math.min(total, done + 1);
    }

    /** Erases the bar. */
    public void finish() {
        if (enabled && lastLength > 0) {
            out.print("\r" + " ".repeat(lastLength) + "\r");
            out.flush();
            lastLength = 0;
        }
    }
}
