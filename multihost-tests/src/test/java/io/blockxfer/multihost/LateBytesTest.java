package io.blockxfer.multihost;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.tck.BlockPattern;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What a member's read-back counts as the late bytes of earlier failed transfers
 * ({@link MemberRole#piecesOf}): its own round's pattern with pieces of the candidate patterns in
 * place, word for word; never a word that no pattern explains, nor pieces of a pattern that is no
 * candidate.
 */
class LateBytesTest {

    private static final long OWN = BlockPattern.seed(1, 0);
    private static final long FAILED = BlockPattern.seed(2, 0);
    private static final long OTHER = BlockPattern.seed(3, 0);

    /** A 64 KiB block of the own pattern whose first {@code pieceBytes} hold {@code piece}'s, at the same offsets. */
    private static MemorySegment block(Arena arena, long piece, int pieceBytes) {
        MemorySegment b = arena.allocate(64 * 1024, 8);
        BlockPattern.fill(b, OWN);
        MemorySegment p = arena.allocate(64 * 1024, 8);
        BlockPattern.fill(p, piece);
        MemorySegment.copy(p, 0, b, 0, pieceBytes);
        return b;
    }

    @Test
    void aBlockPartlyOverwrittenByAFailedTransferHoldsItsPieces() {
        try (Arena arena = Arena.ofConfined()) {
            assertTrue(MemberRole.piecesOf(block(arena, FAILED, 8192), OWN, Set.of(OTHER, FAILED)),
                    "the first 8 KiB of a failed WRITE's pattern landed over the round's own");
        }
    }

    @Test
    void piecesOfAPatternThatIsNoCandidateAreAMismatch() {
        try (Arena arena = Arena.ofConfined()) {
            assertFalse(MemberRole.piecesOf(block(arena, OTHER, 8192), OWN, Set.of(FAILED)),
                    "pieces of a pattern that is no candidate");
        }
    }

    @Test
    void aWordNoPatternExplainsIsAMismatch() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment b = block(arena, FAILED, 8192);
            b.set(ValueLayout.JAVA_LONG_UNALIGNED, 16 * 1024, 0x5eed_5eed_5eed_5eedL);
            assertFalse(MemberRole.piecesOf(b, OWN, Set.of(FAILED)), "one corrupted word among the pieces");
        }
    }
}
