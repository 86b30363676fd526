package io.blockxfer.ucx.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The backend's UCX defaults go only to transports UCX may use (UCX warns of a setting no
 * transport read), step aside for the user's own, and the listener option reads as documented.
 */
class UcxSettingsTest {

    private static final Map<String, String> NONE = Map.of();

    private static Map<String, String> config(Map<String, String> options, Map<String, String> environment) {
        return UcxSettings.resolve(options, NONE::get, environment::get, false).ucxConfig();
    }

    @Test
    void sharedMemoryErrorHandlingOnlyWhereSharedMemoryMayBeUsed() {
        assertEquals("y", config(NONE, NONE).get("MM_ERROR_HANDLING"), "every transport by default");
        assertEquals("y", config(Map.of("ucx.tls", "sm,self"), NONE).get("MM_ERROR_HANDLING"));
        assertEquals("y", config(Map.of("ucx.tls", "sysv,tcp"), NONE).get("MM_ERROR_HANDLING"));
        assertNull(config(Map.of("ucx.tls", "tcp,self"), NONE).get("MM_ERROR_HANDLING"));
        assertNull(config(NONE, Map.of("UCX_TLS", "tcp")).get("MM_ERROR_HANDLING"), "UCX_TLS counts too");
        assertNull(config(Map.of("ucx.tls", "^sm"), NONE).get("MM_ERROR_HANDLING"));
        assertNull(config(Map.of("ucx.tls", "^sysv,posix"), NONE).get("MM_ERROR_HANDLING"));
        assertEquals("y", config(Map.of("ucx.tls", "^posix"), NONE).get("MM_ERROR_HANDLING"));
        assertEquals("y", config(Map.of("ucx.tls", "tcp", "ucx.mm_error_handling", "y"), NONE)
                .get("MM_ERROR_HANDLING"), "what the user asks for is passed on");
    }

    @Test
    void tcpSendSegmentsOf64KiBOnlyWhereTcpMayBeUsed() {
        assertEquals("64k", config(NONE, NONE).get("TCP_TX_SEG_SIZE"));
        assertEquals("64k", config(Map.of("ucx.tls", "TCP,self"), NONE).get("TCP_TX_SEG_SIZE"));
        assertNull(config(Map.of("ucx.tls", "sm,self"), NONE).get("TCP_TX_SEG_SIZE"));
        assertNull(config(NONE, Map.of("UCX_TLS", "^tcp")).get("TCP_TX_SEG_SIZE"));
        assertNull(config(NONE, Map.of("UCX_TCP_TX_SEG_SIZE", "8k")).get("TCP_TX_SEG_SIZE"), "UCX reads its own");
        assertEquals("256k", config(Map.of("ucx.config.TCP_TX_SEG_SIZE", "256k"), NONE).get("TCP_TX_SEG_SIZE"),
                "the default steps aside for a passed-through setting");
        assertEquals("128k", config(Map.of("ucx.tcp_tx_seg_size", "128k"), NONE).get("TCP_TX_SEG_SIZE"));
    }

    @Test
    void theListenerOptionReadsAutoOffAndAnAddress() {
        assertEquals(ListenSetting.AUTO, UcxSettings.resolve(NONE, NONE::get, NONE::get, false).listen());
        assertEquals(ListenSetting.OFF, UcxSettings.resolve(Map.of("ucx.listen", "off"), NONE::get, NONE::get, false)
                .listen());
        assertEquals(new ListenSetting(true, "198.18.0.5", 7800), UcxSettings.resolve(NONE,
                Map.of("blockxfer.ucx.listen", "198.18.0.5:7800")::get, NONE::get, false).listen());
        assertEquals(new ListenSetting(true, null, 7800), ListenSetting.parse(":7800"));
        assertEquals(new ListenSetting(true, "198.18.0.5", 0), ListenSetting.parse("198.18.0.5"));
        assertEquals(new ListenSetting(true, "fd00::1", 7800), ListenSetting.parse("[fd00::1]:7800"));
        assertEquals("[fd00::1]:7800", ListenSetting.parse("[fd00::1]:7800").toString());
        assertFalse(UcxSettings.resolve(Map.of("ucx.listen", "off"), NONE::get, NONE::get, false).ucxConfig()
                .containsKey("LISTEN"), "the backend's own option is no UCX setting");
        for (String bad : new String[] {"host:70000", "host:x", "fd00::1:7800", "[fd00::1", " "}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> UcxSettings.resolve(Map.of("ucx.listen", bad), NONE::get, NONE::get, false), bad);
            assertTrue(e.getMessage().contains("ucx.listen"), e.getMessage());
        }
    }
}
