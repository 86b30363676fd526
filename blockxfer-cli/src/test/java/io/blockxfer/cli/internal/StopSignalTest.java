package io.blockxfer.cli.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Reading whether SIGINT is ignored from a {@code /proc/PID/status} text. */
class StopSignalTest {

    private static String status(String sigIgn) {
        return "Name:\tjava\nState:\tS (sleeping)\nSigBlk:\t0000000000000000\nSigIgn:\t" + sigIgn
                + "\nSigCgt:\t0000000000004442\n";
    }

    @Test
    void bitOneOfSigIgnIsSigint() {
        assertTrue(StopSignal.sigintIgnored(status("0000000000000002")));
        assertTrue(StopSignal.sigintIgnored(status("0000000000001006")));
        assertFalse(StopSignal.sigintIgnored(status("0000000000000000")));
        assertFalse(StopSignal.sigintIgnored(status("0000000000001004")), "SIGQUIT and SIGPIPE, not SIGINT");
    }

    @Test
    void aStatusThatDoesNotSayIsTakenAsNotIgnored() {
        assertFalse(StopSignal.sigintIgnored("Name:\tjava\n"));
        assertFalse(StopSignal.sigintIgnored("SigIgn:\tnot hex\n"));
    }
}
