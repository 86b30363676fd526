package io.blockxfer.tck;

import static io.blockxfer.tck.ConformanceRules.G1;
import static io.blockxfer.tck.ConformanceRules.G2;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.transport.BlockRegion;
import io.blockxfer.transport.ConfigFingerprint;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.InsufficientMemoryException;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.TransportConfig;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * G: what a transport says about itself (region, fingerprint, descriptor) is true, stable, and
 * survives the wire.
 *
 * <p><b>Thread safety:</b> JUnit makes one instance per rule; not shared.
 */
abstract class GeometryRules extends RuleGroup {

    GeometryRules(TransportConformanceSuite suite) {
        super(suite);
    }

    @RuleTest(G1)
    public final void g1_geometry() {
        Fixture fx = fx();
        TransportConfig config = fx.config();
        DataTransport t = fx.initiator(config);
        assertEquals(fx.backend(), t.backendName(), fx.msg("backendName"));
        BlockRegion region = t.region();
        assertEquals(Fixture.BLOCKS, region.numBlocks(), fx.msg("numBlocks"));
        assertEquals(Fixture.BLOCK_LENGTH, region.blockLength(), fx.msg("blockLength"));
        assertEquals(Fixture.BLOCKS * Fixture.BLOCK_LENGTH, region.segment().byteSize(), fx.msg("region size"));
        for (int b : new int[] {0, 1, Fixture.BLOCKS - 1}) {
            assertEquals(region.baseAddress() + b * Fixture.BLOCK_LENGTH, region.block(b).address(),
                    fx.msg("address of block " + b));
        }
        MemorySegment given = fx.callerMemory(t).orElse(null);
        if (given != null) {
            assertEquals(given.address(), region.baseAddress(),
                    fx.msg("the region is not the memory the caller supplied (RegionSpec.wrap must use it in place)"));
            assertEquals(BlockRegion.Ownership.CALLER, region.ownership(), fx.msg("ownership of caller memory"));
        }
        assertEquals(config.fingerprint(), t.configFingerprint(), fx.msg("configFingerprint"));
        assertEquals("e66978b6d0f4f4e6", t.configFingerprint(), fx.msg("fingerprint of the TCK's fields"));
        Map<String, Object> second = new LinkedHashMap<>();
        second.put("b", List.of(1, 2));
        second.put("a", "\u00e9");
        second.put("c", null);
        second.put("d", 1.5);
        second.put("e", true);
        assertEquals("f72134d556c3d662", ConfigFingerprint.of(second), fx.msg("fingerprint of the second vector"));
        PeerDescriptor d = t.localDescriptor();
        assertEquals(fx.backend(), d.backend(), fx.msg("descriptor backend"));
        assertEquals(region.baseAddress(), d.baseAddress(), fx.msg("descriptor base address"));
        assertEquals(Fixture.BLOCKS, d.numBlocks(), fx.msg("descriptor block count"));
        assertEquals(Fixture.BLOCK_LENGTH, d.blockLength(), fx.msg("descriptor block length"));
        assertEquals(t.configFingerprint(), d.fingerprint(), fx.msg("descriptor fingerprint"));
        assertArrayEquals(t.agentMetadata(), d.metadata(), fx.msg("descriptor metadata"));
        byte[] metadata = t.agentMetadata();
        if (metadata.length > 0) {
            byte[] original = metadata.clone();
            metadata[0] ^= (byte) 0xff;
            assertArrayEquals(original, t.agentMetadata(),
                    fx.msg("changing the array agentMetadata returned changed the transport's metadata"));
        }
        fx.configThisHostCannotHold().ifPresent(tooLarge -> {
            long bytes = tooLarge.region().byteSize();
            InsufficientMemoryException refused = assertThrows(InsufficientMemoryException.class,
                    () -> fx.openBare(tooLarge), fx.msg("a region of " + bytes + " bytes (twice this host's memory and"
                            + " swap) must be refused with InsufficientMemoryException"));
            assertEquals(bytes, refused.requestedBytes(), fx.msg("requestedBytes of the refusal"));
            assertTrue(refused.getMessage() != null && !refused.getMessage().isBlank(),
                    fx.msg("the refusal must say why"));
            TargetPeer target = fx.connectedTarget(t, "after-the-refusal");
            long id = fx.write(t, "after-the-refusal", 1, 2);
            fx.assertAllDone(fx.await(t, "after-the-refusal", List.of(id)));
            fx.assertTargetBlock(target, 2, BlockPattern.seed(Fixture.LOCAL, 1), "a transfer after the refusal");
        });
    }

    @RuleTest(G2)
    public final void g2_descriptorRoundTrip() {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer target = fx.target();
        PeerDescriptor mine = t.localDescriptor();
        assertEquals(mine, t.localDescriptor(), fx.msg("localDescriptor differs between two calls"));
        assertArrayEquals(mine.encode(), t.localDescriptor().encode(),
                fx.msg("the encoded descriptor differs between two calls"));
        assertEquals(mine, PeerDescriptor.decode(mine.encode()), fx.msg("decode(encode(d)) != d for the initiator"));
        byte[] wire = target.descriptor().encode();
        PeerDescriptor decoded = PeerDescriptor.decode(Arrays.copyOf(wire, wire.length));
        assertEquals(target.descriptor(), decoded, fx.msg("decode(encode(d)) != d"));
        t.addPeer("a", decoded);
        long id = fx.write(t, "a", 3, 5);
        fx.assertAllDone(fx.await(t, "a", List.of(id)));
        fx.assertTargetBlock(target, 5, BlockPattern.seed(Fixture.LOCAL, 3), "transfer " + id);
    }
}
