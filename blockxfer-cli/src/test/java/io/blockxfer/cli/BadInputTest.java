package io.blockxfer.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BadInputTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            bench --frobnicate                          | Unknown option
            bench --backend nosuch                      | unknown transport 'nosuch'
            bench --block-sizes 1T                      | more than the limit
            bench --block-sizes 64K --max-memory 1M     | more than the limit
            bench --block-sizes 12X                     | bad size '12X'
            bench --block-sizes 0                       | must be positive
            bench --batches 0                           | --batches must be between
            bench --duration forever                    | bad duration
            bench --processes 3                         | --processes must be 1 or 2
            bench --ops write,erase                     | --ops
            bench --window -1                           | --window must be
            backends --classpath /no/such.jar           | does not exist
            tck --backend nosuch                        | unknown transport 'nosuch'
            tck                                         | missing --backend
            tck --backend loopback --rules Z9           | unknown conformance rule ids [Z9]
            tck --backend loopback --two-process        | CROSS_PROCESS
            frobnicate                                  | Unmatched argument
            """)
    void failsWithOneLineAndNonZeroExit(String command, String expected) {
        Cli.Result r = Cli.run(command.trim().split("\\s+"));
        assertNotEquals(0, r.exitCode(), r::toString);
        assertEquals(1, r.errLines().size(), () -> "not one line: " + r);
        assertTrue(r.err().contains(expected), r::toString);
        assertFalse(r.err().contains("\tat ") || r.err().contains("Exception"), () -> "stack trace or type: " + r);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            bench --help    | --block-sizes
            backends --help | --json
            tck --help      | --classpath
            --version       | blockxfer
            """)
    void helpAndVersionSucceed(String command, String expected) {
        Cli.Result r = Cli.run(command.trim().split("\\s+"));
        assertEquals(0, r.exitCode(), r::toString);
        assertTrue(r.out().contains(expected), r::toString);
    }

    @org.junit.jupiter.api.Test
    void noCommandPrintsUsageAndExitsTwo() {
        Cli.Result r = Cli.run();
        assertEquals(2, r.exitCode(), r::toString);
        assertTrue(r.err().contains("bench"), r::toString);
    }
}
