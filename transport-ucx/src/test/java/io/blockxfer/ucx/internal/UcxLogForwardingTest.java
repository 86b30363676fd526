package io.blockxfer.ucx.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.ucx.UcxOptions;
import io.blockxfer.ucx.UcxProvider;
import io.blockxfer.ucx.UcxTestSupport;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * UCX's own messages reach the JVM's logging, under {@value UcxLogFilter#LOGGER} at their level,
 * instead of UCX's printer; and the backend's defaults give UCX nothing to warn about where the
 * transports they configure are not in use.
 */
class UcxLogForwardingTest {

    // a strong reference: java.util.logging holds loggers weakly, and a collected logger loses its handler
    private final Logger ucx = Logger.getLogger(UcxLogFilter.LOGGER);
    private final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) {
            records.add(r);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private Level levelBefore;

    @BeforeEach
    void capture() {
        UcxTestSupport.requireUcx();
        levelBefore = ucx.getLevel();
        ucx.setLevel(Level.ALL);
        ucx.addHandler(capture);
    }

    @AfterEach
    void release() {
        ucx.removeHandler(capture);
        ucx.setLevel(levelBefore);
    }

    private static void openAndClose(String... options) {
        TransportConfig.Builder b = TransportConfig.builder(RegionSpec.allocate(4, 4096)).agentName("log-forwarding");
        for (int i = 0; i < options.length; i += 2) {
            b.option(options[i], options[i + 1]);
        }
        try (DataTransport t = new UcxProvider().open(b.build())) {
            assertTrue(t.localDescriptor().metadata().length > 0);
        }
    }

    private List<String> warnings() {
        return records.stream().filter(r -> Level.WARNING.equals(r.getLevel())).map(LogRecord::getMessage).toList();
    }

    @Test
    void aWarningOfUcxIsALogRecordWithItsTextAndSourceLine() {
        long before = UcxLogFilter.forwarded();
        // a TCP setting with tcp not in use: UCX warns of it when the worker is created
        openAndClose(UcxOptions.TLS, "sm,self", "ucx.config.TCP_TX_SEG_SIZE", "64k");
        List<String> w = warnings();
        assertTrue(w.stream().anyMatch(m -> m.contains("invalid configuration") && m.contains("TCP_TX_SEG_SIZE=64k")
                && m.contains("[ucp_worker.c:")), "UCX's warning as a record of " + UcxLogFilter.LOGGER + ": " + w);
        assertTrue(UcxLogFilter.forwarded() > before);
    }

    @Test
    void overTcpAloneTheDefaultsLeaveUcxNothingToWarnAbout() {
        openAndClose(UcxOptions.TLS, "tcp,self");
        openAndClose(UcxOptions.TLS, "sm,self");
        assertEquals(List.of(), warnings());
    }

    @Test
    void aLoggerThatIsOffTakesNothingAndUcxPrintsNothing() {
        ucx.setLevel(Level.OFF);
        long before = UcxLogFilter.forwarded();
        openAndClose(UcxOptions.TLS, "sm,self", "ucx.config.TCP_TX_SEG_SIZE", "64k");
        assertEquals(before, UcxLogFilter.forwarded());
        assertEquals(List.of(), records);
    }
}
