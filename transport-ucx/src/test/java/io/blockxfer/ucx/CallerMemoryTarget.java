package io.blockxfer.ucx;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import java.lang.foreign.Arena;
import java.util.Base64;

/**
 * A target process whose region is caller memory registered with UCX (which the TCK's target
 * process does not offer): prints {@code DESC <base64 of the encoded descriptor>} and serves until
 * its stdin closes. Used where writes an initiator cannot be stopped from making (a consistent lie
 * about caller memory) must not land in the test's own process.
 *
 * <p><b>Thread safety:</b> a program.
 */
public final class CallerMemoryTarget {

    private CallerMemoryTarget() {
    }

    /** Arguments: {@code blocks blockLength}. */
    public static void main(String[] args) throws Exception {
        int blocks = Integer.parseInt(args[0]);
        long blockLength = Long.parseLong(args[1]);
        try (Arena arena = Arena.ofShared();
                DataTransport t = new UcxProvider().open(TransportConfig.builder(
                        RegionSpec.wrap(arena.allocate(blocks * blockLength, 4096), blockLength)).build())) {
            System.out.println("DESC " + Base64.getEncoder().encodeToString(t.localDescriptor().encode()));
            System.out.flush();
            while (System.in.read() >= 0) {
                // serve until the parent goes away
            }
        }
    }
}
