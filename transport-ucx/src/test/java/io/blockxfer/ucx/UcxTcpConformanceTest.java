package io.blockxfer.ucx;

import io.blockxfer.tck.ConformanceRules;
import io.blockxfer.tck.TckHarness;
import io.blockxfer.tck.TransportConformanceSuite;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/**
 * The UCX backend over TCP alone ({@code ucx.tls=tcp,self}, on loopback), in this JVM: as between
 * hosts, every peer is connected through its listener, its WRITEs are UCX's zero-copy TCP puts and
 * its READs gets that the target's UCX serves. The rules this engine path decides
 * ({@link ConformanceRules#nativeLibrary()}: registration, every byte-moving rule, cancels in
 * flight, dead and stalled peers, timeliness, close, the stress runs but S2, see {@link #rules()});
 * the rest, which the managed layer decides whatever the path, the whole-kit suites certify.
 */
// full tier: the listener path in this JVM; the fast tier checks it with UcxListenerTest, and the full
// tier's multi-host suite runs it between containers
@Tag("full")
class UcxTcpConformanceTest extends TransportConformanceSuite {

    private static final String TLS = "blockxfer." + UcxOptions.TLS;
    private static @Nullable String before;

    @BeforeAll
    static void tcpAlone() {
        before = System.getProperty(TLS);
        System.setProperty(TLS, "tcp,self");
    }

    @AfterAll
    static void restore() {
        if (before == null) {
            System.clearProperty(TLS);
        } else {
            System.setProperty(TLS, before);
        }
    }

    @Override
    protected TckHarness harness() {
        return UcxTck.inJvm();
    }

    @Override
    protected Set<ConformanceRules> rules() {
        Set<ConformanceRules> rules = ConformanceRules.nativeLibrary();
        // S2 removes and re-adds peers every 20 ms with READs in flight; over TCP UCX 1.18 emulates
        // those READs with messages, and a target whose initiator vanished while it still queued a
        // reply crashes in ucp_request_dt_dereg (docs/native-backends.md, "Dead peers and UCX 1.18's shared
        // memory"): 3 of 4 runs of this suite here crashed the JVM. S1 and S3 still stress this path.
        rules.remove(ConformanceRules.S2);
        return rules;
    }
}
