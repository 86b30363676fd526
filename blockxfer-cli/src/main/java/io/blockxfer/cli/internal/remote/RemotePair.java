package io.blockxfer.cli.internal.remote;

import io.blockxfer.cli.internal.ArenaTransport;
import io.blockxfer.cli.internal.CliException;
import io.blockxfer.cli.internal.NotifyTally;
import io.blockxfer.cli.internal.PeerPair;
import io.blockxfer.cli.internal.SlotPlan;
import io.blockxfer.cli.internal.TakerStyle;
import io.blockxfer.cli.internal.TargetNotifications;
import io.blockxfer.cli.internal.Tuning;
import io.blockxfer.cli.internal.WireProbe;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.TransferOp;
import io.blockxfer.transport.spi.TransportProvider;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Optional;

/**
 * An initiator here and its target on a bench server's host, opened through a
 * {@link BenchClient}; block patterns are written and checked over there through the control
 * channel, and the {@link WireProbe} measures the link itself. The memcpy baseline copies between
 * the initiator's region and a stand-in of the same size here. The target's notifications are
 * counted and timed over there, by its clock less the offset estimated before each run
 * ({@link HostClocks}); another estimate after the run bounds the drift.
 *
 * <p><b>Thread safety:</b> see {@link PeerPair}.
 */
final class RemotePair implements PeerPair, WireProbe {

    private final BenchClient client;
    private final ArenaTransport local;
    private final int target;
    private final long blockBytes;

    private RemotePair(BenchClient client, ArenaTransport local, int target, long blockBytes) {
        this.client = client;
        this.local = local;
        this.target = target;
        this.blockBytes = blockBytes;
    }

    /** Opens the initiator here, a target over there, and registers it. */
    static RemotePair open(BenchClient client, TransportProvider provider, int numBlocks, long blockBytes,
            Tuning tuning) {
        ArenaTransport local = ArenaTransport.open(provider, numBlocks, blockBytes, tuning, "bench-initiator");
        int target = 0;
        try {
            BenchClient.Opened opened = client.open(provider.name(), numBlocks, blockBytes, tuning.progress());
            target = opened.target();
            PeerDescriptor d = opened.descriptor();
            if (!d.backend().equals(provider.name()) || d.numBlocks() != numBlocks || d.blockLength() != blockBytes) {
                throw new CliException("the server at " + client.address() + " opened a target that is not what was"
                        + " asked for: " + d.backend() + ", " + d.numBlocks() + " x " + d.blockLength()
                        + " bytes instead of " + provider.name() + ", " + numBlocks + " x " + blockBytes);
            }
            local.transport().addPeer(PEER, d);
            return new RemotePair(client, local, target, blockBytes);
        } catch (RuntimeException | Error e) {
            try {
                if (target > 0) {
                    client.closeTarget(target);
                }
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            } finally {
                local.close();
            }
            throw e;
        }
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
        client.fill(target, block, seed);
    }

    @Override
    public long targetMismatch(int block, long seed) {
        return client.mismatch(target, block, seed);
    }

    @Override
    public TargetNotifications notifications() {
        return new TargetNotifications() {
            private HostClocks.Estimate before = new HostClocks.Estimate(0, 0);
            private long errorNanos;

            @Override
            public void arm(long tag, TakerStyle style) {
                before = client.clocks().estimate();
                client.armNotifications(target, tag, before.offsetNanos(), style);
            }

            @Override
            public NotifyTally disarm(long expected, Duration limit) {
                NotifyTally tally = client.disarmNotifications(target, expected, limit);
                HostClocks.Estimate after = client.clocks().estimate();
                errorNanos = Math.max(before.errorNanos(), after.errorNanos())
                        + Math.abs(after.offsetNanos() - before.offsetNanos());
                return tally;
            }

            @Override
            public long clockErrorNanos() {
                return errorNanos;
            }
        };
    }

    @Override
    public Optional<WireProbe> wire() {
        return Optional.of(this);
    }

    @Override
    public Rate stream(TransferOp op, SlotPlan plan, long blockLength, long nanos) {
        return client.stream(target, op, plan, local.transport().region().segment(), blockBytes, nanos);
    }

    @Override
    public Rate remoteMemcpy(TransferOp op, SlotPlan plan, long blockLength, long nanos) {
        return client.remoteMemcpy(target, op, plan, nanos);
    }

    @Override
    public long targetCpuNanos() {
        return client.serverCpuNanos();
    }

    @Override
    public void close() {
        if (!local.isOpen()) {
            return;
        }
        try {
            local.transport().close();
        } finally {
            try {
                client.closeTarget(target);
            } finally {
                local.close();
            }
        }
    }
}
