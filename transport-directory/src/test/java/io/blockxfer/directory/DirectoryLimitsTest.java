package io.blockxfer.directory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The limits of prefixes, member ids, TTLs and values, and how keys map to member ids. */
class DirectoryLimitsTest {

    @Test
    void ttlsAreWholeSecondsFromTwoSecondsToAnHour() {
        for (Duration ok : List.of(Duration.ofSeconds(2), Duration.ofSeconds(15), Duration.ofHours(1))) {
            assertEquals(ok, DirectoryLimits.checkTtl(ok));
        }
        for (Duration bad : List.of(Duration.ofMillis(1999), Duration.ZERO, Duration.ofSeconds(-5),
                Duration.ofSeconds(3601), Duration.ofMillis(2500))) {
            var e = assertThrows(IllegalArgumentException.class, () -> DirectoryLimits.checkTtl(bad), bad.toString());
            assertTrue(e.getMessage().contains(bad.toString()), "the message names the TTL: " + e.getMessage());
        }
        assertThrows(NullPointerException.class, () -> DirectoryLimits.checkTtl(null));
    }

    @Test
    void memberIdsAreOneKeyDirectlyUnderThePrefix() {
        for (String ok : List.of("a", "prefill-0", "decode_3.gpu:7", "worker@host-1", "x".repeat(128))) {
            assertEquals(ok, DirectoryLimits.checkMemberId(ok));
        }
        for (String bad : List.of("", "a/b", "/a", "has space", "x".repeat(129), "tab\t", "é")) {
            var e = assertThrows(IllegalArgumentException.class, () -> DirectoryLimits.checkMemberId(bad), bad);
            assertTrue(e.getMessage().contains("member id"), e.getMessage());
        }
    }

    @Test
    void prefixesStartAndEndWithASlashAndHoldNoEmptySegment() {
        for (String ok : List.of("/a/", "/blockxfer/prod-eu/", "/x:y@z/v1.2/")) {
            assertEquals(ok, DirectoryLimits.checkPrefix(ok));
        }
        for (String bad : List.of("", "/", "a/", "/a", "/a//b/", "/a/./", "/a/../", "/a b/", "/" + "x".repeat(256) + "/")) {
            var e = assertThrows(IllegalArgumentException.class, () -> DirectoryLimits.checkPrefix(bad), bad);
            assertTrue(e.getMessage().contains("prefix"), e.getMessage());
        }
    }

    @Test
    void aKeyNamesAMemberOnlyDirectlyUnderItsPrefix() {
        assertEquals(Optional.of("m1"), DirectoryLimits.memberId("/d/", "/d/m1"));
        assertEquals(Optional.empty(), DirectoryLimits.memberId("/d/", "/d1/m1"));
        assertEquals(Optional.empty(), DirectoryLimits.memberId("/d/", "/d/a/b"));
        assertEquals(Optional.empty(), DirectoryLimits.memberId("/d/", "/d/"));
        assertEquals(Optional.empty(), DirectoryLimits.memberId("/d/", "/e/m1"));
    }

    @Test
    void valuesAboveTheLimitAreRefused() {
        assertEquals(DirectoryLimits.MAX_VALUE_BYTES,
                DirectoryLimits.checkValue(new byte[DirectoryLimits.MAX_VALUE_BYTES]).length);
        var e = assertThrows(IllegalArgumentException.class, () -> DirectoryLimits.checkValue(new byte[1 << 20]));
        assertTrue(e.getMessage().contains("1048576"), e.getMessage());
    }
}
