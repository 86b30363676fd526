package io.blockxfer.nixl.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.nixl.NixlOptions;
import io.blockxfer.transport.ProgressMode;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What a progress mode makes of NIXL's agent: in the polling-thread mode (and so by default) the
 * progress thread is the fallback, looking in rarely and sleeping on a mutex, not a spinlock, when
 * it meets a polling thread in the worker; in the backend-thread mode it keeps NIXL's own
 * rhythm; and what the user set explicitly wins over both.
 */
class NixlSettingsTest {

    private static String engineConfig(NixlSettings s) {
        return s.backendParams().get("UCX").get(NixlSettings.ENGINE_CONFIG);
    }

    @Test
    void autoIsThePollingThreadMode() {
        assertEquals(ProgressMode.POLLING_THREAD, NixlSettings.resolve(ProgressMode.AUTO));
        assertEquals(ProgressMode.POLLING_THREAD, NixlSettings.from(Map.of()).progressMode());
        assertEquals(ProgressMode.BACKEND_THREAD, NixlSettings.resolve(ProgressMode.BACKEND_THREAD));
    }

    @Test
    void inThePollingThreadModeTheProgressThreadIsAFallbackOnAMutex() {
        NixlSettings s = NixlSettings.from(Map.of(), ProgressMode.POLLING_THREAD);
        assertEquals(NixlOptions.DEFAULT_FALLBACK_DELAY_MICROS, s.progressDelayMicros());
        assertEquals("USE_MT_MUTEX=y", engineConfig(s));
        assertEquals(s, NixlSettings.from(Map.of(), ProgressMode.AUTO));
    }

    @Test
    void inTheBackendThreadModeNixlKeepsItsOwnRhythmAndLock() {
        NixlSettings s = NixlSettings.from(Map.of(), ProgressMode.BACKEND_THREAD);
        assertEquals(NixlOptions.DEFAULT_PROGRESS_DELAY_MICROS, s.progressDelayMicros());
        assertFalse(s.backendParams().get("UCX").containsKey(NixlSettings.ENGINE_CONFIG),
                "the backend-thread mode passes no engine_config of its own");
    }

    @Test
    void explicitSettingsWinOverTheMode() {
        NixlSettings delay = NixlSettings.from(Map.of(NixlOptions.PROGRESS_DELAY_MICROS, "2000"),
                ProgressMode.POLLING_THREAD);
        assertEquals(2000, delay.progressDelayMicros());
        NixlSettings ownLock = NixlSettings.from(Map.of("nixl.ucx.engine_config", "TLS=tcp, use_mt_mutex = n"),
                ProgressMode.POLLING_THREAD);
        assertEquals("TLS=tcp, use_mt_mutex = n", engineConfig(ownLock));
    }

    @Test
    void theMutexIsAddedToTheUsersOwnEngineConfig() {
        NixlSettings s = NixlSettings.from(Map.of("nixl.ucx.engine_config", "TLS=tcp"), ProgressMode.AUTO);
        assertEquals("TLS=tcp,USE_MT_MUTEX=y", engineConfig(s));
    }

    @Test
    void aBackendListWithoutUcxGetsNoUcxSetting() {
        NixlSettings s = NixlSettings.from(Map.of(NixlOptions.BACKENDS, "POSIX"), ProgressMode.POLLING_THREAD);
        assertEquals(Map.of("POSIX", Map.of()), s.backendParams());
    }

    @Test
    void badOptionsAreStillRefusedInEveryMode() {
        for (ProgressMode mode : ProgressMode.values()) {
            assertThrows(IllegalArgumentException.class,
                    () -> NixlSettings.from(Map.of(NixlOptions.PROGRESS_DELAY_MICROS, "-1"), mode), mode.name());
        }
    }

    @Test
    void regionsTheBackendAllocatesAreInHugePagesUnlessTurnedOff() {
        assertTrue(NixlSettings.from(Map.of()).hugePages());
        assertFalse(NixlSettings.from(Map.of(NixlOptions.HUGE_PAGES, "false")).hugePages());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> NixlSettings.from(Map.of(NixlOptions.HUGE_PAGES, "sometimes")));
        assertTrue(e.getMessage().contains(NixlOptions.HUGE_PAGES), e.getMessage());
    }
}
