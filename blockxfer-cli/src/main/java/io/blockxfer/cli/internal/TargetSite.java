package io.blockxfer.cli.internal;

import io.blockxfer.transport.Capability;
import io.blockxfer.transport.spi.TransportProvider;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Where {@code blockxfer bench} opens its targets: in this process, in a child JVM, or on the
 * host of a {@code bench --serve} ({@link Placement}). The runner asks it first which backends it
 * can host, then opens one {@link PeerPair} per measured point.
 *
 * <p><b>Thread safety:</b> not thread-safe; used by the measuring thread.
 */
public interface TargetSite extends AutoCloseable {

    /** Where the targets live. */
    Placement placement();

    /** How many regions of a point's size this host holds (initiator, stand-ins, a local target). */
    int regionsHere();

    /** Why this site cannot host a target of {@code provider}, or empty when it can. */
    Optional<Refusal> refusal(TransportProvider provider);

    /**
     * Why a target of {@code provider} at this site cannot receive and time notifications
     * ({@code bench --notify}), or empty when it can; asked only for a backend the site hosts.
     */
    default Optional<String> notifyRefusal(TransportProvider provider) {
        return provider.capabilities().contains(Capability.NOTIFICATIONS) ? Optional.empty()
                : Optional.of(provider.name() + " does not carry notifications (it lacks "
                        + Capability.NOTIFICATIONS + ")");
    }

    /** Opens an initiator here and a target at this site, the target registered with the initiator. */
    PeerPair open(TransportProvider provider, int numBlocks, long blockBytes, Tuning tuning);

    /** Ends what the site holds (a connection, a session); idempotent. */
    @Override
    void close();

    /**
     * Why a backend cannot be measured at a site.
     *
     * <p><b>Thread safety:</b> immutable.
     *
     * @param reason one short line
     * @param usage whether asking for it is a usage error (exit 2) rather than a failure here
     * @param detail the long form for {@code --verbose}, or null
     */
    record Refusal(String reason, boolean usage, @Nullable String detail) {

        /** The refusal as the exception {@code blockxfer} reports. */
        public CliException toException() {
            CliException e = usage ? CliException.usage(reason) : new CliException(reason);
            return detail == null ? e : e.withDetail(detail);
        }
    }
}
