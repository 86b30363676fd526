package io.blockxfer.tck;

import static io.blockxfer.tck.ConformanceRules.R1;
import static io.blockxfer.tck.ConformanceRules.R2;
import static io.blockxfer.tck.ConformanceRules.R3;
import static io.blockxfer.tck.ConformanceRules.R4;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DataTransport;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Assumptions;

/**
 * R: reads bring the peer's current bytes into the right local blocks and leave the peer alone;
 * a backend without reads refuses them.
 *
 * <p><b>Thread safety:</b> JUnit makes one instance per rule; not shared.
 */
abstract class ReadRules extends RuleGroup {

    ReadRules(TransportConformanceSuite suite) {
        super(suite);
    }

    @RuleTest(R1)
    public final void r1_singleBlockRead() {
        require(Capability.READ);
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        long id = fx.submit(t, false, "a", new int[] {4}, new int[] {20});
        fx.assertAllDone(fx.await(t, "a", List.of(id)));
        fx.assertLocalBlock(t, 4, BlockPattern.seed(Fixture.TARGET, 20), "READ " + id);
        for (int b = 0; b < Fixture.BLOCKS; b++) {
            if (b != 4) {
                fx.assertLocalBlock(t, b, BlockPattern.seed(Fixture.LOCAL, b), "beside READ " + id);
            }
        }
        fx.assertUntouched(a, Set.of(), "the peer after READ " + id + " (a READ must not write)");
    }

    @RuleTest(R2)
    public final void r2_batchRead() {
        require(Capability.READ);
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        int[] local = Fixture.range(0, 32);
        int[] remote = new int[32];
        for (int i = 0; i < 32; i++) {
            remote[i] = (i * 13 + 7) % Fixture.BLOCKS;
        }
        long id = fx.submit(t, false, "a", local, remote);
        long run = fx.submit(t, false, "a", Fixture.range(40, 8), Fixture.range(50, 8));
        fx.assertAllDone(fx.await(t, "a", List.of(id, run)));
        for (int i = 0; i < 32; i++) {
            fx.assertLocalBlock(t, i, BlockPattern.seed(Fixture.TARGET, remote[i]), "READ " + id + " pair " + i);
        }
        for (int i = 0; i < 8; i++) {
            fx.assertLocalBlock(t, 40 + i, BlockPattern.seed(Fixture.TARGET, 50 + i), "READ " + run + " pair " + i);
        }
        for (int b = 32; b < Fixture.BLOCKS; b++) {
            if (b < 40 || b >= 48) {
                fx.assertLocalBlock(t, b, BlockPattern.seed(Fixture.LOCAL, b), "outside READs " + id + ", " + run);
            }
        }
        fx.assertUntouched(a, Set.of(), "the peer after READs (a READ must not write)");
    }

    @RuleTest(R3)
    public final void r3_readRefusedWithoutCapability() {
        Fixture fx = fx();
        Assumptions.assumeFalse(fx.has(Capability.READ), () -> fx.msg("skipped: the backend supports READ"));
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        assertThrows(UnsupportedOperationException.class, () -> t.readBlocks("a", new int[] {0}, new int[] {0}),
                fx.msg("READ accepted without the READ capability"));
        assertThrows(UnsupportedOperationException.class, () -> t.readBlocks("nobody", new int[] {0}, new int[] {0}),
                fx.msg("READ from an unknown peer without the READ capability"));
        fx.assertQuiet(t, "a", "after a refused READ");
        fx.assertLocalBlock(t, 0, BlockPattern.seed(Fixture.LOCAL, 0), "after a refused READ");
        fx.assertUntouched(a, Set.of(), "after a refused READ");
    }

    @RuleTest(R4)
    public final void r4_readSeesCurrentBytes() {
        require(Capability.READ);
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        long first = fx.submit(t, false, "a", new int[] {4, 5}, new int[] {20, 21});
        fx.assertAllDone(fx.await(t, "a", List.of(first)));
        fx.assertLocalBlock(t, 4, BlockPattern.seed(Fixture.TARGET, 20), "READ " + first);
        long fresh = 3;
        a.fill(20, BlockPattern.seed(fresh, 20));
        a.fill(21, BlockPattern.seed(fresh, 21));
        long second = fx.submit(t, false, "a", new int[] {6, 7}, new int[] {20, 21});
        long again = fx.submit(t, false, "a", new int[] {4}, new int[] {21});
        fx.assertAllDone(fx.await(t, "a", List.of(second, again)));
        fx.assertLocalBlock(t, 6, BlockPattern.seed(fresh, 20), "READ " + second + " after the peer changed its block");
        fx.assertLocalBlock(t, 7, BlockPattern.seed(fresh, 21), "READ " + second + " after the peer changed its block");
        fx.assertLocalBlock(t, 4, BlockPattern.seed(fresh, 21), "READ " + again + " into a block read before");
        fx.assertLocalBlock(t, 5, BlockPattern.seed(Fixture.TARGET, 21), "the block of READ " + first
                + ", not read again");
    }
}
