package io.blockxfer.ucx;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;

/**
 * Holds a UCX-allocated region in a posix shared-memory file that stays linked while it lives
 * ({@code UCX_ALLOC_PRIO=md:posix}, {@code UCX_POSIX_USE_PROC_LINK=n}): prints {@code READY} and
 * waits to be killed. What a {@code kill -9} of it leaves in {@code /dev/shm} is what the sweep at
 * the next UCX start must remove.
 *
 * <p><b>Thread safety:</b> a program.
 */
public final class PosixRegionHolder {

    private PosixRegionHolder() {
    }

    /** Opens the transport, prints {@code READY}, sleeps until killed (or stdin closes). */
    public static void main(String[] args) throws Exception {
        TransportConfig config = TransportConfig.builder(RegionSpec.allocate(64, 64 * 1024))
                .option(UcxOptions.CONFIG_PREFIX + "ALLOC_PRIO", "md:posix")
                .option(UcxOptions.CONFIG_PREFIX + "POSIX_USE_PROC_LINK", "n").build();
        try (DataTransport t = new UcxProvider().open(config)) {
            System.out.println("READY " + ProcessHandle.current().pid() + " " + t.region());
            System.out.flush();
            while (System.in.read() >= 0) {
                // hold the region until the parent goes away
            }
        }
    }
}
