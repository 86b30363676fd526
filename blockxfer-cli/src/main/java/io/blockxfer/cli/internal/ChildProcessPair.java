package io.blockxfer.cli.internal;

import io.blockxfer.tck.process.ChildJvm;
import io.blockxfer.tck.process.ChildJvmException;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.spi.TransportProvider;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * An initiator here and its target in a child JVM running {@link BenchTargetProcess} (same JDK,
 * same class path, the launcher's JVM options, the {@code blockxfer.*} system properties and the
 * backend options passed on; its progress mode stays the backend's default), driven over its line
 * protocol: {@code READY <descriptor>}, {@code FILL}, {@code CHECK}, {@code NARM}, {@code NDISARM},
 * {@code CLOSE}. The child is a {@link ChildJvm}: it exits when its stdin closes or this JVM exits,
 * so no orphan outlives us. Both processes read the same {@code CLOCK_MONOTONIC} clock, so the
 * child times notifications against the submit times the initiator stamped into them.
 *
 * <p><b>Thread safety:</b> see {@link PeerPair}; requests to the child are serialised.
 */
final class ChildProcessPair implements PeerPair {

    private static final Duration REPLY = Duration.ofSeconds(60);

    private final ArenaTransport local;
    private final ChildJvm target;

    private ChildProcessPair(ArenaTransport local, ChildJvm target) {
        this.local = local;
        this.target = target;
    }

    /** Opens the initiator, starts the target process, and registers it. */
    static ChildProcessPair open(TransportProvider provider, int numBlocks, long blockBytes, Tuning tuning) {
        ArenaTransport local = ArenaTransport.open(provider, numBlocks, blockBytes, tuning, "bench-initiator");
        ChildProcessPair pair = null;
        try {
            pair = new ChildProcessPair(local, start(provider.name(), numBlocks, blockBytes, tuning));
            String ready = pair.reply(null);
            if (!ready.startsWith("READY ")) {
                throw new CliException("the target process could not open a " + provider.name() + " transport: "
                        + (ready.startsWith("ERR ") ? ready.substring(4) : ready));
            }
            PeerDescriptor target = PeerDescriptor.decode(Base64.getDecoder().decode(ready.substring(6)));
            local.transport().addPeer(PEER, target);
            return pair;
        } catch (RuntimeException | Error e) {
            if (pair != null) {
                pair.close();
            } else {
                local.close();
            }
            throw e;
        }
    }

    /** The command line of the target process for these arguments (its JVM flags, properties, arguments). */
    static ChildJvm.Builder targetCommand(String backend, int numBlocks, long blockBytes, Tuning tuning) {
        List<String> args = new ArrayList<>(List.of(backend, Integer.toString(numBlocks), Long.toString(blockBytes),
                "bench-target-" + ProcessHandle.current().pid()));
        tuning.options().forEach((k, v) -> args.add("opt:" + k + "=" + v));
        return LauncherJvmOptions.addTo(ChildJvm.builder(BenchTargetProcess.class))
                .name("bench-target")
                .jvmArgs(List.of("-Xmx256m"))
                .forwardSystemProperties(key -> key.startsWith("blockxfer."))
                .args(args)
                .stderrTo(line -> {
                    // kept by ChildJvm for messages; the benchmark's output stays the initiator's
                })
                .exitGrace(Duration.ofSeconds(15));
    }

    private static ChildJvm start(String backend, int numBlocks, long blockBytes, Tuning tuning) {
        try {
            return targetCommand(backend, numBlocks, blockBytes, tuning).start();
        } catch (ChildJvmException e) {
            throw new CliException("could not start the target process: " + e.getMessage(), CliException.FAILURE, e);
        }
    }

    /** The target's next line (the answer to {@code command}, or its first line when null). */
    private String reply(@Nullable String command) {
        try {
            return command == null ? target.nextLine(REPLY) : target.request(command, REPLY);
        } catch (ChildJvmException e) {
            throw new CliException("the target process gave no reply: " + e.getMessage(), CliException.FAILURE, e);
        }
    }

    private String request(String command) {
        String r = reply(command);
        if (r.startsWith("ERR ")) {
            throw new CliException("target process: " + r.substring(4));
        }
        return r;
    }

    @Override
    public DataTransport initiator() {
        return local.transport();
    }

    @Override
    public MemorySegment baselineTarget() {
        return local.standIn();
    }

    @Override
    public void fillTarget(int block, long seed) {
        request("FILL " + block + " " + seed);
    }

    @Override
    public long targetMismatch(int block, long seed) {
        return Long.parseLong(request("CHECK " + block + " " + seed).substring(3));
    }

    @Override
    public TargetNotifications notifications() {
        return new TargetNotifications() {
            @Override
            public void arm(long tag, TakerStyle style) {
                request("NARM " + tag + " " + style.name());
            }

            @Override
            public NotifyTally disarm(long expected, Duration limit) {
                String tally = request("NDISARM " + expected + " " + limit.toMillis());
                if (!tally.startsWith("TALLY ")) {
                    throw new CliException("the target process answered '" + tally + "' to NDISARM");
                }
                try {
                    return NotifyTally.decode(Base64.getDecoder().decode(tally.substring(6)));
                } catch (IllegalArgumentException e) {
                    throw new CliException("the target process sent an unreadable notification tally: "
                            + e.getMessage());
                }
            }

            @Override
            public long clockErrorNanos() {
                return 0; // one host, one CLOCK_MONOTONIC
            }
        };
    }

    @Override
    public synchronized void close() {
        try {
            local.close();
        } finally {
            try {
                if (target.isAlive()) {
                    target.send("CLOSE");
                }
            } catch (ChildJvmException e) {
                // it exited meanwhile: close() below reaps it
            } finally {
                target.close();
            }
        }
    }
}
