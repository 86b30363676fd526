package io.blockxfer.nixl;

import static org.junit.jupiter.api.Assertions.fail;

import io.blockxfer.tck.TckEnvironment;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.spi.Availability;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Assumptions;

/** Helpers shared by the module's own tests. Thread safety: stateless. */
final class NixlTests {

    static final NixlProvider PROVIDER = new NixlProvider();

    private NixlTests() {
    }

    /** Skips the calling test with the cause if NIXL cannot run here, or fails if it is required. */
    static void assumeNixl() {
        Availability a = PROVIDER.availability();
        if (a.isAvailable()) {
            return;
        }
        if (TckEnvironment.fromSystem().requires(NixlProvider.NAME)) {
            fail("nixl is unavailable but required by blockxfer.tck.require: " + a.cause(), a.error().orElse(null));
        }
        Assumptions.abort("nixl is unavailable: " + a.cause());
    }

    /** Whether the run requires NIXL (so that skips become failures). */
    static boolean required() {
        return TckEnvironment.fromSystem().requires(NixlProvider.NAME);
    }

    /** The NIXL release the run loads: {@code BLOCKXFER_NIXL_VERSION} (the CI matrix sets it), else the default. */
    static String expectedRelease() {
        String chosen = System.getenv("BLOCKXFER_NIXL_VERSION");
        return chosen == null || chosen.isBlank() ? "1.5.1" : chosen.strip().replaceFirst("^cu1[23]-", "");
    }

    /** The project's natives folder as the build passes it, or null. */
    static Path nativesDir() {
        String dir = System.getProperty("blockxfer.natives.dir");
        return dir == null || dir.isBlank() ? null : Path.of(dir);
    }

    static TransportConfig.Builder config(String name, int blocks, long blockLength) {
        return TransportConfig.builder(RegionSpec.allocate(blocks, blockLength)).agentName(name)
                .closeTimeout(Duration.ofSeconds(5));
    }

    static DataTransport open(TransportConfig config) {
        return PROVIDER.open(config);
    }

    /** Byte {@code i} of a block with {@code seed} from source block {@code block}; same formula as the Python peer. */
    static byte pattern(long seed, int block, long i) {
        return (byte) ((i + 3L * block + 11L * seed + i / 251) % 251);
    }

    static void fill(MemorySegment blockSegment, long seed, int block) {
        for (long i = 0; i < blockSegment.byteSize(); i++) {
            blockSegment.set(ValueLayout.JAVA_BYTE, i, pattern(seed, block, i));
        }
    }

    /** The first offset where the block differs from the pattern, or -1. */
    static long mismatch(MemorySegment blockSegment, long seed, int block) {
        for (long i = 0; i < blockSegment.byteSize(); i++) {
            if (blockSegment.get(ValueLayout.JAVA_BYTE, i) != pattern(seed, block, i)) {
                return i;
            }
        }
        return -1;
    }

    /** Polls {@code peer} until every id is reported; returns each outcome. Fails after {@code timeout}. */
    static Map<Long, Boolean> await(DataTransport t, String peer, Set<Long> ids, Duration timeout) {
        Set<Long> pending = new HashSet<>(ids);
        Map<Long, Boolean> outcomes = new HashMap<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!pending.isEmpty()) {
            PollResult r = t.poll(peer);
            for (int i = 0; i < r.doneCount(); i++) {
                outcomes.put(r.doneId(i), true);
                pending.remove(r.doneId(i));
            }
            for (int i = 0; i < r.failedCount(); i++) {
                outcomes.put(r.failedId(i), false);
                pending.remove(r.failedId(i));
            }
            if (!pending.isEmpty() && System.nanoTime() - deadline > 0) {
                fail("transfers " + pending + " to '" + peer + "' not reported within " + timeout + "; got " + outcomes);
            }
            LockSupport.parkNanos(20_000);
        }
        return outcomes;
    }
}
