package io.blockxfer.multihost;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
 * place, word for word, a piece beginning or ending anywhere in a word; never a word that no pattern
 * explains, nor pieces of a pattern that is no candidate.
 */
class LateBytesTest {

    private static final long OWN = BlockPattern.seed(1, 0);
    private static final long FAILED = BlockPattern.seed(2, 0);
    private static final long OTHER = BlockPattern.seed(3, 0);

    /**
     * The first payload byte of the 13th TCP segment of a message whose first segment of 1,448 bytes
     * began with a 25-byte header: where a read-back of CI's m-b on nixl held another pattern
     * from, 7 bytes into a word.
     */
    private static final int SEGMENT_SEAM = 1_423 + 12 * 1_448;

    /** A 64 KiB block of the own pattern whose first {@code pieceBytes} hold {@code piece}'s, at the same offsets. */
    private static MemorySegment block(Arena arena, long piece, int pieceBytes) {
        return block(arena, piece, 0, pieceBytes);
    }

    /** A 64 KiB block of the own pattern whose bytes {@code from} to {@code to - 1} hold {@code piece}'s. */
    private static MemorySegment block(Arena arena, long piece, int from, int to) {
        MemorySegment b = arena.allocate(64 * 1024, 8);
        BlockPattern.fill(b, OWN);
        MemorySegment p = arena.allocate(64 * 1024, 8);
        BlockPattern.fill(p, piece);
        MemorySegment.copy(p, from, b, from, to - from);
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

    @Test
    void aPieceThatBeginsAndEndsInsideWordsHoldsItsPieces() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment b = block(arena, FAILED, SEGMENT_SEAM, SEGMENT_SEAM + 1_448);
            assertTrue(BlockPattern.firstMismatch(b, OWN) % 8 == 7, "the piece begins at the last byte of a word");
            assertTrue(MemberRole.piecesOf(b, OWN, Set.of(OTHER, FAILED)),
                    "one TCP segment of a failed transfer's pattern landed over the round's own");
        }
    }

    @Test
    void aPieceOfAPatternThatIsNoCandidateIsAMismatchAlsoAtASeam() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment b = block(arena, OTHER, SEGMENT_SEAM, SEGMENT_SEAM + 1_448);
            assertFalse(MemberRole.piecesOf(b, OWN, Set.of(FAILED)), "a segment of a pattern that is no candidate");
            assertEquals(SEGMENT_SEAM - 7, MemberRole.firstUnexplainedWord(b, OWN, Set.of(FAILED)),
                    "the first word no pattern explains is the one the segment begins in");
        }
    }

    @Test
    void aSeamWordWithAByteNoPatternExplainsIsAMismatch() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment b = block(arena, FAILED, SEGMENT_SEAM, SEGMENT_SEAM + 1_448);
            int seamWord = SEGMENT_SEAM - 7;
            b.set(ValueLayout.JAVA_BYTE, seamWord, (byte) ~b.get(ValueLayout.JAVA_BYTE, seamWord));
            assertFalse(MemberRole.piecesOf(b, OWN, Set.of(FAILED)),
                    "a seam word whose first byte is neither pattern's");
        }
    }
}
