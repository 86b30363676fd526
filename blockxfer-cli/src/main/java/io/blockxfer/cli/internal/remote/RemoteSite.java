package io.blockxfer.cli.internal.remote;

import io.blockxfer.cli.internal.PeerPair;
import io.blockxfer.cli.internal.Placement;
import io.blockxfer.cli.internal.TargetSite;
import io.blockxfer.cli.internal.Tuning;
import io.blockxfer.transport.Capability;
import io.blockxfer.transport.spi.TransportProvider;
import java.util.Optional;

/**
 * Targets on the host of a {@code bench --serve}, reached through one {@link BenchClient}
 * session. A backend is measured when it is available here, its peers can live in different
 * processes ({@link Capability#CROSS_PROCESS}; the loopback backend cannot, so {@code --backend all}
 * skips it and naming it is a usage error), and the server serves it.
 *
 * <p><b>Thread safety:</b> not thread-safe; used by the measuring thread.
 */
public final class RemoteSite implements TargetSite {

    private final BenchClient client;

    /** Targets through {@code client}'s session; closing the site ends it. */
    public RemoteSite(BenchClient client) {
        this.client = client;
    }

    /** The server's host name, as it reported it. */
    public String serverName() {
        return client.welcome().server();
    }

    @Override
    public Placement placement() {
        return Placement.REMOTE;
    }

    @Override
    public int regionsHere() {
        return 2;
    }

    /**
     * Why {@code provider} cannot be measured against any server, judged here before connecting:
     * its peers must be able to live in different processes.
     */
    public static Optional<Refusal> localRefusal(TransportProvider provider) {
        if (!provider.capabilities().contains(Capability.CROSS_PROCESS)) {
            return Optional.of(new Refusal("--connect needs backends whose peers can live in different processes; "
                    + provider.name() + " lacks " + Capability.CROSS_PROCESS, true, null));
        }
        return Optional.empty();
    }

    @Override
    public Optional<Refusal> refusal(TransportProvider provider) {
        Optional<Refusal> local = localRefusal(provider);
        if (local.isPresent()) {
            return local;
        }
        for (BenchClient.ServedBackend b : client.welcome().backends()) {
            if (b.name().equals(provider.name())) {
                return b.served() ? Optional.empty() : Optional.of(new Refusal("the server at " + client.address()
                        + " does not serve " + provider.name() + " (add --verbose for its reason)", false,
                        provider.name() + " on " + client.welcome().server() + ": " + b.cause()));
            }
        }
        return Optional.of(new Refusal("the server at " + client.address() + " has no " + provider.name()
                + " backend", false, "it has: " + client.welcome().backends().stream()
                .map(BenchClient.ServedBackend::name).toList()));
    }

    @Override
    public Optional<String> notifyRefusal(TransportProvider provider) {
        Optional<String> here = TargetSite.super.notifyRefusal(provider);
        if (here.isPresent()) {
            return here;
        }
        if (!client.welcome().timesNotifications()) {
            return Optional.of("the bench server at " + client.address() + " does not time notifications (an earlier"
                    + " blockxfer version there)");
        }
        for (BenchClient.ServedBackend b : client.welcome().backends()) {
            if (b.name().equals(provider.name()) && !b.notifications()) {
                return Optional.of(provider.name() + " on " + client.welcome().server() + " does not carry"
                        + " notifications (it lacks " + Capability.NOTIFICATIONS + " there)");
            }
        }
        return Optional.empty();
    }

    @Override
    public PeerPair open(TransportProvider provider, int numBlocks, long blockBytes, Tuning tuning) {
        return RemotePair.open(client, provider, numBlocks, blockBytes, tuning);
    }

    @Override
    public void close() {
        client.close();
    }
}
